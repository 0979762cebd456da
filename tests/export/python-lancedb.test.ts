import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { exp } from '../buffer/experience-fixtures/make.ts';
import { missingPython, runPython } from '../helpers/python.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Issue #13: Winnow's LanceDB tables read by Python `lancedb` with typed columns (chat turns as
 * lists of structs, features as a map, times as timestamps, JSON as JSON — never strings). Python
 * `lancedb` is optional: skipped with a visible note where it cannot be imported.
 */
const missing = missingPython(['lancedb'], 'reading the LanceDB tables with Python lancedb');
const db = join(tempDir('winnow-py-lance-'), 'db');
let seen: Record<string, Record<string, string>>;

describe.skipIf(missing.length > 0)('Python lancedb reads the typed tables', () => {
  beforeAll(async () => {
    await (await TaskStore.open(db)).write(
      [
        {
          id: 't1',
          taskset: 'demo',
          messages: [{ role: 'user', content: '1+1?' }],
          features: { difficulty: 0.5 },
          meta: { source: 'x', level: 2 },
        },
      ],
      'r1',
    );
    const buf = await ExperienceBuffer.open(db, { table: 'exps' });
    await buf.write([exp('e1', { createdAt: Date.now(), info: { judge: 1 } })]);
    await buf.close();
    const r = runPython(join(import.meta.dirname, 'python', 'read_lance_tables.py'), [db, 'tasks', 'exps']);
    if (r.code !== 0) throw new Error(`read_lance_tables.py failed: ${r.stderr.slice(-2000)}`);
    seen = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, Record<string, string>>;
  }, 120_000);

  it('sees lists, maps, timestamps and JSON, not strings', () => {
    const tasks = seen.tasks!;
    expect(tasks.messages).toMatch(/^list<.*struct<role: string.*content: string/);
    expect(tasks.features).toMatch(/^map<string, double/);
    expect(tasks.updated_at).toBe('timestamp[ms, tz=UTC]');
    expect(tasks.meta).not.toBe('string');
    const exps = seen.exps!;
    expect(exps.created_at).toBe('timestamp[ms, tz=UTC]');
    expect(exps.tokens).toMatch(/^list<item: int32>/);
    expect(exps.info).not.toBe('string');
  });
});
