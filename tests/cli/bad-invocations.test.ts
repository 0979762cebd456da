import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.ts';
import { DataQualityError, StrictModeError } from '../../src/core/errors.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { treeHashes } from '../lifecycle/rft-files.ts';
import { captureMain } from './capture.ts';

const dir = tempDir('winnow-bad-args-');
const db = join(dir, 'db');
const runs = join(dir, 'runs');
const tasksYaml = join(dir, 'tasks.yaml');
const otherYaml = join(dir, 'other.yaml');
const rftYaml = join(dir, 'rft.yaml');

afterEach(() => vi.restoreAllMocks());

beforeAll(async () => {
  writeFileSync(
    join(dir, 'tasks.jsonl'),
    ['{"id":"a","q":"What is 1+1?","a":"2"}', '{"id":"b","q":"What is 2+2?","a":"4"}', ''].join('\n'),
  );
  const pipeline = (name: string) =>
    [
      `name: ${name}`,
      'input:',
      '  path: tasks.jsonl',
      'mapping:',
      '  taskset: t',
      '  id: id',
      '  prompt: q',
      '  answer: a',
      '',
    ].join('\n');
  writeFileSync(tasksYaml, pipeline('bad-args'));
  writeFileSync(otherYaml, pipeline('other'));
  // Refused before the RFT config is even parsed, so a stub is enough.
  writeFileSync(rftYaml, 'name: bad-args-rft\nkind: rft\n');
  const r = await captureMain(['run', tasksYaml, '--db', db, '--quiet']);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

const T = '<tasks.yaml>';
const R = '<rft.yaml>';
const O = '<other.yaml>';
const D = '<db>';
const fill = (args: readonly string[]) =>
  args.map((a) => (a === T ? tasksYaml : a === R ? rftYaml : a === O ? otherYaml : a === D ? db : a));

/** Bad command lines: each is exit 2 with exactly one line matching its pattern. */
const CASES: ReadonlyArray<readonly [readonly string[], RegExp]> = [
  // unknown commands, subcommands and help topics
  [['rn'], /^error: unknown command 'rn'; did you mean 'run'\?$/],
  [['exprot', '--db', D], /^error: unknown command 'exprot'; did you mean 'export'\?$/],
  [['bench', 'ingset'], /^error: unknown benchmark 'ingset'; did you mean 'ingest'\?$/],
  [
    ['bench'],
    /^error: winnow bench needs a benchmark: ingest, selection, learning, curriculum, buffer, replay, tokenize, judge, loop, studio, ops, scale, agents, minhash /,
  ],
  [['help', 'ispect'], /^error: unknown command 'ispect'; did you mean 'inspect'\?$/],
  [['help', 'bench', 'replya'], /^error: unknown benchmark 'replya'; did you mean 'replay'\?$/],
  [['help', 'run', 'extra'], /^error: winnow run has no subcommands, got 'extra' after it$/],
  // run: unknown options, values, arity, applicability
  [
    ['run', T, '--stpes', '3', '--db', D],
    /^error: unknown option '--stpes' for winnow run; did you mean '--steps'\?$/,
  ],
  [['run', T, '--steps', 'abc', '--db', D], /^error: --steps expects an integer ≥ 1, got 'abc'$/],
  [['run', T, '--steps', '0', '--db', D], /^error: --steps expects an integer ≥ 1, got '0'$/],
  [['run', T, '--steps', '-2', '--db', D], /^error: --steps expects an integer ≥ 1, got '-2'$/],
  [['run', T, '--seed', '1.5', '--db', D], /^error: --seed expects an integer, got '1\.5'$/],
  [
    ['run', T, '--steps', '3', '--db', D],
    /^error: --steps applies only to kind: rft; .*tasks\.yaml is a task pipeline/,
  ],
  [['run', T, '--resume', '--db', D], /^error: --resume applies only to kind: rft; /],
  [['run', T, '--run', 'x-1', '--db', D], /^error: --run applies only to kind: rft; /],
  [['run', T, '--overwrite', 'bad-args-1', '--db', D], /^error: --overwrite applies only to kind: rft; /],
  [['run', T, '--runs-dir', runs, '--db', D], /^error: --runs-dir applies only to kind: rft; /],
  [
    ['run', R, '--strict', '--db', D],
    /^error: --strict applies only to kind: tasks; .*rft\.yaml is an RFT run/,
  ],
  [['run', T, O, '--db', D], /^error: winnow run takes at most 1 argument\(s\) \(PIPELINE\.yaml\), got 2: /],
  [['run', '--db', D], /^error: winnow run needs the pipeline file/],
  [['run', T, '--db'], /^error: --db expects a value \(DIR\)$/],
  [['run', T, '--json=yes', '--db', D], /^error: --json is a switch and takes no value$/],
  [['run', T, '--db', ''], /^error: --db expects a value \(DIR\), got ''$/],
  [['run', join(dir, 'nope.yaml'), '--db', D], /^error: .*nope\.yaml: cannot read config: /],
  // bench: every benchmark's flags are checked before it loads
  [['bench', 'ingest', '--rows', 'abc'], /^error: --rows expects an integer ≥ 1, got 'abc'$/],
  [['bench', 'ingest', 'extra'], /^error: winnow bench ingest takes no arguments, got 'extra'$/],
  [['bench', 'buffer', '--samples', '-1'], /^error: --samples expects an integer ≥ 1, got '-1'$/],
  [['bench', 'buffer', '--rows', '100'], /^error: --rows expects an integer ≥ 256, got '100'$/],
  [
    ['bench', 'selection', '--scenario', 'nosy_refs'],
    /^error: --scenario: unknown value 'nosy_refs'; did you mean 'noisy_refs'\?$/,
  ],
  [
    ['bench', 'selection', '--seedz', '3'],
    /^error: unknown option '--seedz' for winnow bench selection; did you mean '--seeds'\?$/,
  ],
  [
    ['bench', 'learning', '--selectors', 'random,botz'],
    /^error: --selectors: unknown item 'botz'; did you mean 'bots'\?$/,
  ],
  [
    ['bench', 'learning', '--selectors', 'random,,bots'],
    /^error: --selectors expects a comma-separated list without empty items/,
  ],
  [['bench', 'replay', '--every', '1.5'], /^error: --every expects an integer ≥ 1, got '1\.5'$/],
  [['bench', 'replay', '--seeds'], /^error: --seeds expects a value \(K\)$/],
  // schema, runs, gc
  [['schema', 'rtf'], /^error: unknown schema kind 'rtf'; did you mean 'rft'\?$/],
  [
    ['schema', '--outt', 'x.json'],
    /^error: unknown option '--outt' for winnow schema; did you mean '--out'\?$/,
  ],
  [
    ['runs', '--nmae', 'x', '--db', D],
    /^error: unknown option '--nmae' for winnow runs; did you mean '--name'\?$/,
  ],
  [['runs', 'extra', '--db', D], /^error: runs takes no arguments, got extra/],
  [['runs', '--db', join(dir, 'no-such-db')], /^error: no database folder at .*no-such-db/],
  [['gc', '--db', D], /^error: gc needs the runs to delete/],
  [
    ['gc', 'bad-args-9', '--db', D, '--yes'],
    /^error: no run 'bad-args-9' in .*db; .*\(nothing was deleted\)$/,
  ],
  [['gc', '--yes=1', '--db', D], /^error: --yes is a switch and takes no value$/],
  // --debug does not turn a usage error into a stack trace
  [['--debug', 'run', T, '--steps', 'x', '--db', D], /^error: --steps expects an integer ≥ 1, got 'x'$/],
];

describe('bad invocations: exit 2, one line, no stack, the database untouched', () => {
  it('has at least 20 cases over run, bench, schema, runs, gc, help and unknown commands', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    const commands = new Set(CASES.map(([a]) => a.find((x) => !x.startsWith('-'))));
    for (const c of ['rn', 'run', 'bench', 'schema', 'runs', 'gc', 'help']) expect(commands).toContain(c);
  });

  for (const [args, pattern] of CASES) {
    it(`winnow ${args.join(' ')}`, async () => {
      const before = treeHashes(db);
      const r = await captureMain(fill(args));
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      expect({ code: r.code, lines }).toEqual({ code: 2, lines: [expect.stringMatching(pattern)] });
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stdout).toBe('');
      expect(treeHashes(db)).toEqual(before);
    });
  }
});

describe('errors and exit codes', () => {
  const runEntry = COMMANDS.find((c) => c.name === 'runs')!;

  it('an unexpected error is one line with a --debug hint, exit 1; --debug and WINNOW_DEBUG=1 show the stack', async () => {
    vi.stubEnv('WINNOW_DEBUG', '');
    const boom = () => {
      throw new TypeError("Cannot read properties of undefined (reading 'x')\n    at somewhere");
    };
    vi.spyOn(runEntry, 'run').mockImplementation(async () => async () => boom());
    const plain = await captureMain(['runs', '--db', db]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toBe(
      "error: TypeError: Cannot read properties of undefined (reading 'x') (run with --debug for the stack trace)\n",
    );

    vi.spyOn(runEntry, 'run').mockImplementation(async () => async () => boom());
    const debug = await captureMain(['runs', '--db', db, '--debug']);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^error: TypeError: Cannot read/);
    expect(debug.stderr).toMatch(/^\s+at /m);

    vi.stubEnv('WINNOW_DEBUG', '1');
    vi.spyOn(runEntry, 'run').mockImplementation(async () => async () => boom());
    const env = await captureMain(['runs', '--db', db]);
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/^\s+at /m);
    vi.unstubAllEnvs();
  });

  it('data-quality failures exit 3, one line', async () => {
    vi.stubEnv('WINNOW_DEBUG', '');
    for (const err of [
      new StrictModeError('3 input row(s) could not be read'),
      new DataQualityError('all rows rejected'),
    ]) {
      vi.spyOn(runEntry, 'run').mockRejectedValue(err);
      const r = await captureMain(['runs', '--db', db]);
      expect(r.code).toBe(3);
      expect(r.stderr).toBe(`error: ${err.message}\n`);
    }
    vi.unstubAllEnvs();
  });

  it('a strict task pipeline with a bad row exits 3 with one line (real run, its own database)', async () => {
    const strictDir = join(dir, 'strict');
    const file = join(dir, 'strict.jsonl');
    writeFileSync(file, '{"id":"a","q":"What is 1+1?","a":"2"}\n{"id":"b","q":\n');
    const yaml = join(dir, 'strict.yaml');
    writeFileSync(
      yaml,
      [
        'name: strict',
        'input:',
        '  path: strict.jsonl',
        'mapping:',
        '  taskset: t',
        '  id: id',
        '  prompt: q',
        '  answer: a',
        '',
      ].join('\n'),
    );
    const r = await captureMain(['run', yaml, '--db', strictDir, '--strict', '--quiet']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: .*strict/)]);
  }, 60_000);

  it('the real CLI: unknown command, bad bench flag and misspelt run option, one line each, exit 2', () => {
    for (const [args, pattern] of [
      [['rn'], /^error: unknown command 'rn'; did you mean 'run'\?\n$/],
      [['bench', 'ingest', '--rows', 'abc'], /^error: --rows expects an integer ≥ 1, got 'abc'\n$/],
      [
        ['run', tasksYaml, '--stpes', '3', '--db', db],
        /^error: unknown option '--stpes' for winnow run; did you mean '--steps'\?\n$/,
      ],
    ] as const) {
      const before = treeHashes(db);
      const r = winnow([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(pattern);
      expect(treeHashes(db)).toEqual(before);
    }
  }, 60_000);
});
