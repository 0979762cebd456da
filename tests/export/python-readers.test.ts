import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { captureMain } from '../cli/capture.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { missingPython, runPython } from '../helpers/python.ts';
import { tempDir } from '../helpers/tmp.ts';
import { makeExportDb } from './fixture.ts';

/**
 * Every export format read unchanged by Python's pyarrow, pandas and Hugging Face datasets: the
 * schema as pyarrow prints it (struct and list types, not JSON strings; timestamps, not floats),
 * null lists as None in pandas, datasets rows equal to pyarrow's. docs/exports.md shows these same
 * printouts, and this test checks it does, word for word.
 */
const missing = missingPython(
  ['pyarrow', 'pandas', 'datasets'],
  'the pyarrow/pandas/datasets export readers',
);
const dir = tempDir('winnow-export-py-');

/** name → export arguments; each becomes `<name>.parquet`. */
const EXPORTS: Record<string, string[]> = {
  'winnow-tasks': [],
  'winnow-experiences': ['--table', 'exps'],
  verl: ['--format', 'verl', '--split', 'train'],
  'trl-prompt': ['--format', 'trl-prompt'],
  'trl-prompt-standard': ['--format', 'trl-prompt', '--where', 'messages IS NULL'],
  'trl-sft': ['--format', 'trl-sft', '--table', 'exps'],
  'trl-sft-standard': ['--format', 'trl-sft', '--table', 'exps', '--where', 'messages IS NULL'],
  'trl-messages': ['--format', 'trl-messages', '--table', 'exps'],
  'trl-dpo': ['--format', 'trl-dpo', '--table', 'exps'],
};

interface Seen {
  pyarrow: { schema: string; rows: Record<string, unknown>[] };
  pandas: Record<string, string[]>;
  pandas_null_is_none: Record<string, boolean>;
  datasets: { features: Record<string, string>; rows_equal_pyarrow: boolean[] };
}

const CHAT_FEATURE = "List({'role': Value('string'), 'content': Value('string')})";
let seen: Record<string, Seen>;

describe.skipIf(missing.length > 0)('Python reads every export format unchanged', () => {
  beforeAll(async () => {
    const db = await makeExportDb(dir);
    const files: string[] = [];
    for (const [name, args] of Object.entries(EXPORTS)) {
      const out = join(dir, `${name}.parquet`);
      const r = await captureMain(['export', '--db', db, ...args, '--out', out]);
      if (r.code !== 0) throw new Error(`export ${name} failed: ${r.stderr}`);
      files.push(`${name}=${out}`);
    }
    const py = runPython(join(REPO_ROOT, 'tests/export/python/read_exports.py'), files, {
      env: { HF_HOME: join(dir, 'hf'), HF_DATASETS_CACHE: join(dir, 'hf', 'datasets') },
    });
    if (py.code !== 0) throw new Error(`read_exports.py failed: ${py.stderr.slice(-2000)}`);
    seen = JSON.parse(py.stdout.trim().split('\n').pop()!) as Record<string, Seen>;
  }, 240_000);

  it('pyarrow sees structs, lists and timestamps — the printouts docs/exports.md shows', () => {
    const docs = readFileSync(join(REPO_ROOT, 'docs/exports.md'), 'utf8');
    for (const [name, s] of Object.entries(seen)) {
      expect(s.pyarrow.schema, name).not.toMatch(
        /^(messages|features|meta|info|extra_info|reward_model): string/m,
      );
      expect(docs, `docs/exports.md shows the ${name} schema as pyarrow prints it`).toContain(
        `\`\`\`text\n${s.pyarrow.schema}\n\`\`\``,
      );
    }
    expect(seen['winnow-tasks']!.pyarrow.schema).toContain('updated_at: timestamp[ms, tz=UTC]');
    expect(seen['winnow-experiences']!.pyarrow.schema).toContain('created_at: timestamp[ms, tz=UTC]');
    expect(seen['trl-prompt-standard']!.pyarrow.schema.split('\n')[0]).toBe('prompt: string not null');
    expect(seen['trl-sft-standard']!.pyarrow.schema.split('\n').slice(0, 2)).toEqual([
      'prompt: string not null',
      'completion: string not null',
    ]);
  });

  it('pyarrow reads the exact values', () => {
    expect(seen.verl!.pyarrow.rows[1]).toEqual({
      data_source: 'arith',
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '2*3=' },
      ],
      ability: 'general',
      reward_model: { style: 'rule', ground_truth: '6' },
      extra_info: {
        index: 1,
        split: 'train',
        task_id: 't2',
        taskset: 'arith',
        features: { difficulty: 1, pass_rate: 0.5 },
        meta: { source: 'gen', tags: null, level: 2.5, ability: null, extra: { ok: true } },
      },
    });
    expect(seen['trl-dpo']!.pyarrow.rows.map((r) => [r.group_id, r.chosen, r.rejected, r.margin])).toEqual([
      ['g1', '3', '4', 1],
      ['g3', '3!', '5', 0.25],
    ]);
    expect(seen['winnow-experiences']!.pyarrow.rows[0]!.created_at).toBe('2023-11-14T22:13:20+00:00');
  });

  it('pandas: a null messages cell is None (not NaN, not a string); lists and structs are arrays and dicts', () => {
    const tasks = seen['winnow-tasks']!;
    expect(tasks.pandas.messages).toEqual(['NoneType', 'ndarray', 'NoneType']);
    expect(tasks.pandas.features).toEqual(['dict', 'dict', 'dict']);
    expect(tasks.pandas.meta).toEqual(['dict', 'dict', 'dict']);
    expect(tasks.pandas.updated_at).toEqual(['Timestamp', 'Timestamp', 'Timestamp']);
    expect(tasks.pandas_null_is_none.messages).toBe(true);
    expect(seen['winnow-experiences']!.pandas_null_is_none.messages).toBe(true);
    expect(seen.verl!.pandas.prompt).toEqual(['ndarray', 'ndarray', 'ndarray']);
    expect(seen.verl!.pandas.extra_info).toEqual(['dict', 'dict', 'dict']);
  });

  it('HF datasets: typed features, and every row equal to what pyarrow reads', () => {
    for (const [name, s] of Object.entries(seen))
      expect(s.datasets.rows_equal_pyarrow.every(Boolean), name).toBe(true);
    expect(seen.verl!.datasets.features.prompt).toBe(CHAT_FEATURE);
    expect(seen.verl!.datasets.features.reward_model).toBe(
      "{'style': Value('string'), 'ground_truth': Value('string')}",
    );
    expect(seen['trl-messages']!.datasets.features.messages).toBe(CHAT_FEATURE);
    expect(seen['trl-prompt']!.datasets.features.meta).toBe(
      // meta is stored as Lance's binary JSON, which keeps keys sorted (docs/exports.md, LanceDB tables).
      "{'ability': Value('string'), 'level': Value('float64'), 'source': Value('string'), 'tags': List(Value('string')), 'extra': {'ok': Value('bool')}}",
    );
    expect(seen['winnow-tasks']!.datasets.features.updated_at).toBe("Value('timestamp[ms, tz=UTC]')");
    expect(seen['winnow-experiences']!.datasets.features.tokens).toBe("List(Value('int32'))");
  });
});
