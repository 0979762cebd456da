import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { describe, expect, it } from 'vitest';
import { EXPERIENCE_SCHEMA, encodeExperiences } from '../../src/buffer/storage/experience-table.ts';
import { writeParquet } from '../../src/io/parquet-writer.ts';
import { readDataset } from '../../src/io/reader.ts';
import { verifyMath } from '../../src/verify/index.ts';
import { exp } from '../buffer/experience-fixtures/make.ts';
import { winnow, winnowInProcess } from '../helpers/cli.ts';
import { scaled } from '../helpers/slowdown.ts';
import { tempDir } from '../helpers/tmp.ts';

const root = tempDir('winnow-judge-');

/** Hostile rows: each must score 0 with its reason, fast, without a crash. */
const HOSTILE: Array<{ id: string; response: string; answer?: string; reward: number; reason: string }> = [
  {
    id: 'ok',
    response: 'so $x = \\boxed{\\frac{9}{4}\\pi}$',
    answer: '\\frac94\\pi',
    reward: 1,
    reason: 'equal',
  },
  { id: 'wrong', response: 'The answer is 7', answer: '#### 8', reward: 0, reason: 'not_equal' },
  {
    id: 'huge',
    response: `${'x'.repeat(1_000_000)} \\boxed{5}`,
    answer: '5',
    reward: 0,
    reason: 'too_large',
  },
  {
    id: 'nested',
    response: `\\boxed{${'{'.repeat(10_000)}5${'}'.repeat(10_000)}}`,
    answer: '5',
    reward: 0,
    reason: 'too_large',
  },
  { id: 'unclosed', response: 'so the answer is \\boxed{5', answer: '5', reward: 0, reason: 'unparseable' },
  { id: 'def', response: '\\def\\five{5} \\boxed{\\five}', answer: '5', reward: 0, reason: 'unparseable' },
  { id: 'input', response: '\\input{/etc/passwd} \\boxed{5}', answer: '5', reward: 0, reason: 'unparseable' },
  { id: 'no-answer-field', response: '\\boxed{5}', reward: 0, reason: 'no_reference' },
];

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every file under a folder with its hash: a LanceDB database is unchanged when this is. */
function folderHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p.slice(dir.length)] = sha(p);
    }
  };
  walk(dir);
  return out;
}

function parseRows(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function expectHostileVerdicts(rows: Array<Record<string, unknown>>, idField = 'id') {
  expect(rows.map((r) => r[idField])).toEqual(HOSTILE.map((h) => h.id));
  expect(rows.map((r) => [r.reward, (r.info as { reason: string }).reason])).toEqual(
    HOSTILE.map((h) => [h.reward, h.reason]),
  );
}

describe('hostile inputs through the verifier', () => {
  it('each scores its verdict within the time limit (after the one-off parser warm-up)', () => {
    verifyMath('\\boxed{1}', '1', { cache: null });
    for (const h of HOSTILE) {
      const t0 = performance.now();
      const v = verifyMath(h.response, h.answer ?? '', { cache: null });
      const ms = performance.now() - t0;
      expect([h.id, v.correct]).toEqual([h.id, h.reward === 1]);
      expect(ms).toBeLessThan(200);
    }
  });
});

describe('winnow judge end to end', () => {
  it('JSONL: keeps order and fields, adds reward and info, summary on stderr, input unchanged', () => {
    const input = join(root, 'hostile.jsonl');
    writeFileSync(
      input,
      `${HOSTILE.map(({ reward: _r, reason: _s, ...row }) => JSON.stringify(row)).join('\n')}\n`,
    );
    const before = sha(input);
    const out = join(root, 'scored.jsonl');
    const t0 = Date.now();
    const r = winnow(['judge', '--reward', 'math', '--input', input, '--output', out, '--quiet']);
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(sha(input)).toBe(before);
    const rows = parseRows(readFileSync(out, 'utf8'));
    expectHostileVerdicts(rows);
    expect(rows[0]).toEqual({
      id: 'ok',
      response: HOSTILE[0]!.response,
      answer: '\\frac94\\pi',
      reward: 1,
      info: {
        extracted: '\\frac{9}{4}\\pi',
        extracted_by: 'boxed',
        expected: '\\frac94\\pi',
        reason: 'equal',
        detail: '',
        form: 'scalar',
      },
    });
    expect((rows[7]!.info as Record<string, unknown>).missing_field).toBe('answer');
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `judged 8 rows, mean reward 0.1250, timeouts 0, unparseable 3, too_large 2, no_reference 1; wrote ${out}`,
    );
  });

  it('20 rows with explosive arguments and a 1 MB response: each refused with its reason, the same under a busy second process', () => {
    const costly: Array<[string, string, number, string]> = [
      ['binom', '\\boxed{\\binom{10^{12}}{5\\cdot10^{11}}}', 0, 'too_costly'],
      ['tower', '\\boxed{10^{10^{10^{10}}}}', 0, 'too_costly'],
      ['factorial', '\\boxed{(10^9)!}', 0, 'too_costly'],
      ['megabyte', `${'y'.repeat(1_000_000)} \\boxed{5}`, 0, 'too_large'],
    ];
    // Stand-ins for inputs whose cost explodes inside the engine (the worker spins forever on
    // them, WINNOW_JUDGE_TEST_SPIN): stopped at the time limit, their worker replaced.
    const spinning: Array<[string, string, number, string]> = [
      ['spin-a', 'so \\boxed{\\winnowTestSpin 5}', 0, 'timeout'],
      ['spin-b', 'so $x = \\boxed{5\\winnowTestSpin}$', 0, 'timeout'],
    ];
    const plain: Array<[string, string, number, string]> = Array.from({ length: 14 }, (_, i) =>
      i % 2 === 0
        ? [`right-${i}`, `so \\boxed{${i + 5}+x-x}`, 1, 'equal']
        : [`wrong-${i}`, `so \\boxed{${i + 6}}`, 0, 'not_equal'],
    );
    const fixed = costly.length + spinning.length;
    const rows = [...costly, ...spinning, ...plain].map(([id, response, reward, reason], k) => ({
      id,
      response,
      answer: k < fixed ? '5' : String(k - fixed + 5),
      want: [reward, reason],
    }));
    expect(rows.length).toBe(20);
    const limitMs = 500;
    const input = join(root, 'costly.jsonl');
    writeFileSync(input, `${rows.map(({ want: _w, ...row }) => JSON.stringify(row)).join('\n')}\n`);
    // The whole file within limit × rows + a few seconds (process start, worker starts), however
    // long the spinning rows would run; the bound grows with the machine's measured slowdown.
    const judge = () => {
      const t0 = Date.now();
      const r = winnow(
        ['judge', '--reward', 'math', '--params', `{"timeLimitMs":${limitMs}}`, '--input', input, '--quiet'],
        { env: { WINNOW_JUDGE_TEST_SPIN: '1' } },
      );
      expect(Date.now() - t0).toBeLessThan(limitMs * rows.length + scaled(10_000));
      return r;
    };
    const verdicts = (r: { code: number; stdout: string }) => {
      expect(r.code).toBe(0);
      return parseRows(r.stdout).map((x) => [x.id, x.reward, (x.info as { reason: string }).reason]);
    };
    const want = rows.map((r) => [r.id, ...r.want]);
    expect(verdicts(judge())).toEqual(want);
    // The verdicts come from pricing the arguments, not from the clock: a busy second process changes nothing.
    const busy = spawn(
      process.execPath,
      ['-e', 'const end = Date.now() + 120000; while (Date.now() < end) {}'],
      {
        stdio: 'ignore',
      },
    );
    try {
      expect(verdicts(judge())).toEqual(want);
    } finally {
      busy.kill();
    }
  });

  it('JSONL to stdout; --response-field/--answer-field; an unreadable line is a warning, not a crash', () => {
    const input = join(root, 'renamed.jsonl');
    writeFileSync(
      input,
      [
        JSON.stringify({ q: 1, out: { text: '\\boxed{[0,1)}' }, gold: '[0, 1)' }),
        'not json',
        JSON.stringify({ q: 2, out: { text: '\\boxed{(0,1]}' }, gold: '[0, 1)', reward: 1 }),
        '',
      ].join('\n'),
    );
    const r = winnow([
      'judge',
      '--reward',
      'math',
      '--input',
      input,
      '--response-field',
      'out.text',
      '--answer-field',
      'gold',
    ]);
    expect(r.code).toBe(0);
    const rows = parseRows(r.stdout);
    expect(rows.map((x) => [x.q, x.reward, x.reward_before])).toEqual([
      [1, 1, undefined],
      [2, 0, 1],
    ]);
    expect(r.stderr).toContain('warning: input row 2 skipped: invalid JSON');
    expect(r.stderr).toContain(
      'judged 2 rows, mean reward 0.5000, timeouts 0, unparseable 0, unreadable input rows 1',
    );
  });

  it('Parquet in and out, input unchanged', async () => {
    const input = join(root, 'hostile.parquet');
    await writeParquet(
      input,
      HOSTILE.map((h) => ({ id: h.id, response: h.response, answer: h.answer ?? null })),
    );
    const before = sha(input);
    const out = join(root, 'scored.parquet');
    const r = winnow(['judge', '--reward', 'math', '--input', input, '--output', out, '--quiet']);
    expect(r.code).toBe(0);
    expect(sha(input)).toBe(before);
    const rows: Array<Record<string, unknown>> = [];
    for await (const b of readDataset(out)) rows.push(...b.records.map((x) => x.fields));
    expectHostileVerdicts(rows);
  });

  it('a LanceDB experience table: answers from the tasks table, database files unchanged', async () => {
    const db = join(root, 'db');
    const conn = await lancedb.connect(db);
    const table = await conn.createEmptyTable('exps', EXPERIENCE_SCHEMA);
    await table.add(
      encodeExperiences(
        HOSTILE.map((h, i) => ({
          exp: exp(h.id, { response: h.response, taskId: `t-${h.id}`, reward: 0.5 }),
          seq: i,
          useCount: 0,
          priority: 0,
          lastUsedStep: -1,
          lastUsedAt: 0,
          consumed: false,
        })),
      ),
    );
    await conn.createTable(
      'tasks',
      HOSTILE.filter((h) => h.answer !== undefined).map((h) => ({ id: `t-${h.id}`, answer: h.answer! })),
    );
    const before = folderHashes(db);
    const out = join(root, 'exps-scored.jsonl');
    const r = winnow([
      'judge',
      '--reward',
      'math',
      '--table',
      'exps',
      '--db',
      db,
      '--output',
      out,
      '--quiet',
    ]);
    expect(r.stderr).toContain('judged 8 rows');
    expect(r.code).toBe(0);
    expect(folderHashes(db)).toEqual(before);
    const rows = parseRows(readFileSync(out, 'utf8'));
    expectHostileVerdicts(rows);
    expect(rows.map((x) => x.reward_before)).toEqual(HOSTILE.map(() => 0.5));
    expect(rows[0]!.task_id).toBe('t-ok');
  });

  it('refuses bad usage with one line and exit 2', async () => {
    const input = join(root, 'hostile.jsonl');
    const cases: Array<[string[], string]> = [
      [['judge', '--input', input], 'judge needs --reward NAME'],
      [['judge', '--reward', 'math'], 'exactly one of --input FILE, --table T or --run ID'],
      [['judge', '--reward', 'math', '--input', input, '--output', input], 'never overwrites its input'],
      [
        ['judge', '--reward', 'math', '--input', input, '--output', 'x.csv'],
        '--output must end in .jsonl or .parquet',
      ],
      [['judge', '--reward', 'mathh', '--input', input], 'math'],
      [['judge', '--reward', 'math', '--params', '[1]', '--input', input], '--params must be a JSON object'],
    ];
    // The first as a real process (its exit status and stderr), the rest in-process (no start-up each).
    for (const [i, [args, text]] of cases.entries()) {
      const r = i === 0 ? winnow(args) : await winnowInProcess(args);
      expect([r.code, r.stderr.trim().split('\n').length]).toEqual([2, 1]);
      expect(r.stderr).toContain(text);
    }
  });
});
