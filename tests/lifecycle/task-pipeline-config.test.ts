import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../../src/core/errors.ts';
import { loadTaskPipeline, runTaskPipelineFile } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import {
  TaskInputSchema,
  taskPipelineConfigSchema,
} from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-task-config-');
writeFileSync(
  join(dir, 'ok.jsonl'),
  '{"id":"a","question":"What is 1 + 1?"}\n{"id":"b","question":"What is 2 + 2?"}\n',
);

/** A valid pipeline as YAML lines; each case edits it into a broken one. */
const GOOD = [
  'name: cfg',
  'input:',
  '  path: ok.jsonl',
  'mapping:',
  '  taskset: t',
  '  id: id',
  '  prompt: question',
  'operators:',
  '  - op: normalize_whitespace',
  '  - op: near_dedup',
  '    params: { threshold: 0.8 }',
  '',
].join('\n');

function writeYaml(name: string, text: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

async function configError(file: string): Promise<ConfigError> {
  const err = await loadTaskPipeline(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe('task pipeline config errors: one line naming the key path, with a hint', () => {
  const cases: Array<{ what: string; yaml: string; path: string; message: string }> = [
    {
      what: 'the old steps key',
      yaml: GOOD.replace('operators:', 'steps:'),
      path: 'steps',
      message: "steps: unknown key 'steps' ('steps' was renamed: use 'operators')",
    },
    {
      what: 'a misspelt top-level key',
      yaml: GOOD.replace('input:', 'inptu:'),
      path: 'inptu',
      message: "inptu: unknown key 'inptu' (1 more problem(s) after this one) (did you mean 'input'?)",
    },
    {
      what: 'a misspelt mapping key',
      yaml: GOOD.replace('  prompt: question', '  promt: question'),
      path: 'mapping.promt',
      message:
        "mapping.promt: unknown key 'promt' (1 more problem(s) after this one) (did you mean 'prompt'?)",
    },
    {
      what: 'a misspelt operator parameter',
      yaml: GOOD.replace('threshold: 0.8', 'threshhold: 0.8'),
      path: 'operators[1].params.threshhold',
      message: "operators[1].params.threshhold: unknown key 'threshhold' (did you mean 'threshold'?)",
    },
    {
      what: 'a wrong type',
      yaml: GOOD.replace('threshold: 0.8', 'threshold: high'),
      path: 'operators[1].params.threshold',
      message: 'operators[1].params.threshold: expected a number, got a string (write a number here)',
    },
    {
      what: 'an unknown operator',
      yaml: GOOD.replace('op: normalize_whitespace', 'op: normalise_unicode'),
      path: 'operators[0].op',
      message: "operators[0].op: unknown operator 'normalise_unicode' (did you mean 'normalize_unicode'?)",
    },
    {
      what: 'the old steps key inside a branch route',
      yaml: `${GOOD}  - branch:\n      routes:\n        - name: long\n          when: { field: prompt, exists: true }\n          steps: []\n`,
      path: 'operators[2].branch.routes[0].steps',
      message:
        "operators[2].branch.routes[0].steps: unknown key 'steps' ('steps' was renamed: use 'operators')",
    },
    {
      what: 'a misspelt reader option',
      yaml: GOOD.replace('  path: ok.jsonl', '  path: ok.jsonl\n  csv: { inferType: false }'),
      path: 'input.csv.inferType',
      message: "input.csv.inferType: unknown key 'inferType' (did you mean 'inferTypes'?)",
    },
  ];

  it.each(cases)('$what → $path', async ({ what, yaml, path, message }) => {
    const file = writeYaml(what.replace(/\W+/g, '-'), yaml);
    const err = await configError(file);
    expect(err.path).toBe(path);
    expect(err.message).toBe(`${file}: ${message}`);
    expect(err.message).not.toContain('\n');
    expect(err.hint).toBeTruthy();
  });

  it('the good config parses with every default filled in', async () => {
    const config = await loadTaskPipeline(writeYaml('good', GOOD));
    expect(config.operators).toEqual([
      { op: 'normalize_whitespace', params: { field: 'prompt', newlines: 'keep' } },
      { op: 'near_dedup', params: expect.objectContaining({ threshold: 0.8 }) },
    ]);
    expect(config.input).toEqual({
      path: 'ok.jsonl',
      batchSize: 8192,
      csv: { header: true, inferTypes: true },
      maxLineBytes: 64 * 1024 * 1024,
      maxDepth: 1000,
    });
  });
});

describe('task pipeline JSON Schema', () => {
  it('z.toJSONSchema of the config schema lists operators typed per registered operator', () => {
    const schema = z.toJSONSchema(taskPipelineConfigSchema(), { io: 'input', unrepresentable: 'any' });
    expect(Object.keys(schema.properties ?? {})).toEqual([
      'name',
      'kind',
      'description',
      'seed',
      'db',
      'runsDir',
      'workers',
      'engine',
      'input',
      'mapping',
      'operators',
      'output',
    ]);
    const ops = JSON.stringify(schema).match(/"const":"[a-z_]+"/g) ?? [];
    for (const name of taskOperatorRegistry().names()) expect(ops).toContain(`"const":"${name}"`);
  });
});

describe('reader options under input:', () => {
  const csv = 'id,question,code,flag\na,What is 1 + 1?,007,true\nb,What is 2 + 2?,42,false\n';
  writeFileSync(join(dir, 'codes.csv'), csv);
  writeFileSync(
    join(dir, 'wrapped.json'),
    JSON.stringify({
      version: 2,
      data: [
        { id: 'x', question: 'Q one?' },
        { id: 'y', question: 'Q two?' },
      ],
    }),
  );

  async function land(name: string, input: string[], meta: string[] = []): Promise<Array<[string, unknown]>> {
    const yaml = [
      `name: ${name}`,
      'input:',
      ...input.map((l) => `  ${l}`),
      'mapping:',
      '  taskset: t',
      '  id: id',
      '  prompt: question',
      ...(meta.length ? [`  meta: [${meta.join(', ')}]`] : []),
      '',
    ].join('\n');
    const db = join(dir, `db-${name}`);
    await runTaskPipelineFile(writeYaml(name, yaml), { registry: taskOperatorRegistry(), dbDir: db });
    const tasks = await (await TaskStore.open(db)).read();
    return tasks
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((t) => [t.prompt ?? '', meta.length ? t.meta : t.id] as [string, unknown]);
  }

  it('csv.inferTypes: false keeps cell text; the default infers lossless numbers and booleans', async () => {
    expect(
      await land('infer-off', ['path: codes.csv', 'csv: { inferTypes: false }'], ['code', 'flag']),
    ).toEqual([
      ['What is 1 + 1?', { code: '007', flag: 'true' }],
      ['What is 2 + 2?', { code: '42', flag: 'false' }],
    ]);
    expect(await land('infer-on', ['path: codes.csv'], ['code', 'flag'])).toEqual([
      ['What is 1 + 1?', { code: '007', flag: true }],
      ['What is 2 + 2?', { code: 42, flag: false }],
    ]);
  });

  it('jsonPath: data reads the array under that key', async () => {
    expect(await land('json-path', ['path: wrapped.json', 'jsonPath: data'])).toEqual([
      ['Q one?', 'x'],
      ['Q two?', 'y'],
    ]);
  });

  it('every input: example in docs/io.md validates', () => {
    const md = readFileSync(join(REPO_ROOT, 'docs', 'io.md'), 'utf8');
    const blocks = [...md.matchAll(/```yaml\n(input:\n[\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(2);
    const parsed = blocks.map((b) => TaskInputSchema.parse((parse(b) as { input: unknown }).input));
    expect(parsed.map((p) => [p.path, p.jsonPath, p.csv])).toEqual([
      ['exports/questions.json', 'data', { header: true, inferTypes: true }],
      [['part-1.csv', 'part-2.csv'], undefined, { delimiter: ';', header: true, inferTypes: false }],
    ]);
  });
});

/** sha256 of every file under `root`, by relative path. */
function hashTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(root);
  return out;
}

describe('a failed start changes nothing', () => {
  const bad: Array<{ what: string; yaml: string; path: string; hint: string }> = [
    {
      what: 'a typo',
      yaml: GOOD.replace('threshold: 0.8', 'threshhold: 0.8'),
      path: 'operators[1].params.threshhold',
      hint: "did you mean 'threshold'?",
    },
    {
      what: 'an unknown operator',
      yaml: GOOD.replace('op: normalize_whitespace', 'op: normalise_unicode'),
      path: 'operators[0].op',
      hint: "did you mean 'normalize_unicode'?",
    },
    {
      what: 'a missing input file',
      yaml: GOOD.replace('path: ok.jsonl', 'path: ok.jsnol'),
      path: 'input.path',
      hint: "did you mean 'ok.jsonl'?",
    },
    {
      what: 'a missing file in a list',
      yaml: GOOD.replace('path: ok.jsonl', 'path: [ok.jsonl, okk.jsonl]'),
      path: 'input.path[1]',
      hint: "did you mean 'ok.jsonl'?",
    },
    {
      what: 'an unknown file extension',
      yaml: GOOD.replace('path: ok.jsonl', 'path: good.yaml'),
      path: 'input.path',
      hint: 'set input.format to one of: jsonl, json, csv, parquet, arrow',
    },
  ];

  it('bad configs leave the database of a good run byte-identical and throw a ConfigError', async () => {
    const db = join(dir, 'db-shared');
    const good = await runTaskPipelineFile(writeYaml('good', GOOD), {
      registry: taskOperatorRegistry(),
      dbDir: db,
    });
    expect(good.tasksOut).toBe(2);
    const before = hashTree(db);
    expect(Object.keys(before).length).toBeGreaterThan(0);
    for (const c of bad) {
      const file = writeYaml(`bad-${c.what.replace(/\W+/g, '-')}`, c.yaml);
      const err = await runTaskPipelineFile(file, { registry: taskOperatorRegistry(), dbDir: db }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, c.what).toBeInstanceOf(ConfigError);
      expect([(err as ConfigError).path, (err as ConfigError).hint], c.what).toEqual([c.path, c.hint]);
      expect((err as ConfigError).message).toMatch(
        new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
      );
      expect(hashTree(db), c.what).toEqual(before);
    }
  });

  it('a bad config never creates the database folder', async () => {
    const db = join(dir, 'db-never');
    const file = writeYaml('bad-fresh', GOOD.replace('path: ok.jsonl', 'path: missing.jsonl'));
    await expect(runTaskPipelineFile(file, { registry: taskOperatorRegistry(), dbDir: db })).rejects.toThrow(
      `${file}: input.path: no such file: ${join(dir, 'missing.jsonl')} (paths are relative to the config file)`,
    );
    expect(() => statSync(db)).toThrow(/ENOENT/);
  });
});
