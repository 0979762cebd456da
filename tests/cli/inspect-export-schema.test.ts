import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDataset } from '../../src/io/reader.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { REPO_ROOT, winnow, winnowInProcess } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

// Inside the repository (in the ignored .winnow folder) so the user module resolves 'zod' from the
// project's node_modules, as a user's own module would from theirs.
const dir = tempDir('winnow-inspect-', join(REPO_ROOT, '.winnow'));
const db = join(dir, 'db');

/** A small pipeline over the first GSM8K lines, with a user operator loaded from a module path. */
function setup(): string {
  const lines = readFileSync(join(REPO_ROOT, 'datasets/gsm8k/test.jsonl'), 'utf8').split('\n').slice(0, 40);
  lines.push(lines[3]!); // an exact duplicate, to have a rejected row
  writeFileSync(join(dir, 'small.jsonl'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'tag-op.ts'),
    [
      "import { z } from 'zod';",
      'export const tagOp = {',
      "  name: 'tag_source', kind: 'map', description: 'adds meta.source_tag',",
      "  params: z.object({ tag: z.string().default('mine') }),",
      '  create: (p) => ({',
      "    name: 'tag_source', kind: 'map',",
      '    process: (batch) => ({ rows: batch.map((t) => ({ ...t, meta: { ...t.meta, source_tag: p.tag } })), dropped: [] }),',
      '  }),',
      '};',
      '',
    ].join('\n'),
  );
  const yaml = join(dir, 'small.yaml');
  writeFileSync(
    yaml,
    [
      'name: small',
      'input: { path: small.jsonl }',
      'mapping: { taskset: gsm8k, prompt: question, answer: answer }',
      'operators:',
      '  - op: extract_answer',
      '    params: { mode: gsm8k }',
      '  - op: exact_dedup',
      '  - op: difficulty',
      '  - module: ./tag-op.ts',
      '    export: tagOp',
      '    params: { tag: from-module }',
      '',
    ].join('\n'),
  );
  return yaml;
}

describe('winnow inspect, export and schema', () => {
  const yaml = setup();
  // A real process runs the pipeline (its user operator loaded from the config's module path);
  // inspect, export and schema then run in-process (no Node start-up per call).
  const run = winnow(['run', yaml, '--db', db]);
  const cli = (args: string[]) => winnowInProcess(args);

  it('runs the pipeline, including a user operator loaded from the module path in the config', async () => {
    expect(run.code, run.stderr).toBe(0);
    const tasks = await (await TaskStore.open(db)).read();
    expect(tasks).toHaveLength(40);
    expect(new Set(tasks.map((t) => t.meta.source_tag))).toEqual(new Set(['from-module']));
    expect(run.stdout).toMatch(/tag_source\s+40\s+40\s+0/);
  });

  it('inspect lists tables and versions, then one table’s schema, column stats (arquero) and samples', async () => {
    const all = JSON.parse((await cli(['inspect', '--db', db, '--json'])).stdout) as {
      tables: Array<{ table: string; rows: number; tags: number }>;
    };
    const byName = Object.fromEntries(all.tables.map((t) => [t.table, t]));
    expect(byName.tasks).toMatchObject({ rows: 40, tags: 1 });
    expect(byName.rejected!.rows).toBe(1);
    expect(byName.runs!.rows).toBe(1);

    const tasks = JSON.parse(
      (await cli(['inspect', '--db', db, '--table', 'tasks', '--limit', '2', '--json'])).stdout,
    ) as {
      rows: number;
      schema: Array<{ name: string }>;
      stats: Array<{ column: string; valid: number; min?: number; max?: number }>;
      sample: unknown[];
    };
    expect(tasks.rows).toBe(40);
    expect(tasks.schema.map((f) => f.name)).toContain('content_hash');
    const difficulty = tasks.stats.find((s) => s.column === 'features.difficulty')!;
    expect(difficulty.valid).toBe(40);
    expect(difficulty.min!).toBeGreaterThanOrEqual(0);
    expect(difficulty.max!).toBeLessThanOrEqual(1);
    expect(tasks.sample).toHaveLength(2);

    const rejected = JSON.parse(
      (await cli(['inspect', '--db', db, '--table', 'rejected', '--json'])).stdout,
    ) as {
      rejected: Array<{ step: string; reason: string; count: number }>;
    };
    expect(rejected.rejected).toEqual([{ step: 'exact_dedup', reason: 'duplicate id <id>', count: 1 }]);
    const text = (await cli(['inspect', '--db', db, '--table', 'tasks'])).stdout;
    expect(text).toContain('column stats:');
    expect(text).toMatch(/tags: run-/);
  });

  it('export writes JSONL tasks and Parquet rows that read back', async () => {
    const jsonl = join(dir, 'out.jsonl');
    const parquet = join(dir, 'out.parquet');
    expect((await cli(['export', '--db', db, '--out', jsonl])).code).toBe(0);
    expect((await cli(['export', '--db', db, '--out', parquet])).code).toBe(0);
    let n = 0;
    for await (const b of readDataset(jsonl)) n += b.records.length;
    expect(n).toBe(40);
    let m = 0;
    for await (const b of readDataset(parquet)) m += b.records.length;
    expect(m).toBe(40);
    // A real process: exit 2 and the line on stderr.
    const bad = winnow(['export', '--db', db, '--out', join(dir, 'out.csv')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--out must end in .jsonl or .parquet');
  });

  it('schema prints a JSON Schema whose operators are typed per operator', async () => {
    const schema = JSON.parse((await cli(['schema'])).stdout) as {
      properties: { operators: { items: { anyOf: Array<{ properties?: { op?: { const?: string } } }> } } };
    };
    const ops = schema.properties.operators.items.anyOf.map((s) => s.properties?.op?.const).filter(Boolean);
    expect(ops).toContain('near_dedup');
    expect(ops).toContain('numeric_augment');
    expect(ops).toContain('llm_judge');
    // One entry per registered task operator (the list grows as operators are added).
    expect([...ops].sort()).toEqual(taskOperatorRegistry().names().sort());
  });
});
