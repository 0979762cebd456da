import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { LandedIds } from '../../src/lifecycle/pipeline/task-pipeline-ids.ts';

const task = (id: string, source?: { file: string; row: number }): Task => ({
  id,
  taskset: 's',
  prompt: 'p',
  features: {},
  meta: {},
  ...(source ? { source } : {}),
});

describe('LandedIds', () => {
  it('names the first source of every repeated id, like a map of id → source (runs, gaps, files, generated rows)', () => {
    const rng = new Rng(15);
    const landed = new LandedIds();
    const reference = new Map<string, Task['source'] | null>();
    const files = ['/a.jsonl', '/b.csv', '/c.parquet'];
    let file = 0;
    let row = 0;
    let repeats = 0;
    for (let i = 0; i < 60_000; i++) {
      const r = rng.float();
      if (r < 0.001) {
        file = (file + 1) % files.length;
        row = 0;
      }
      row += rng.float() < 0.1 ? 2 + rng.int(5) : 1; // gaps: rows rejected before landing
      const generated = rng.float() < 0.02;
      const source = generated ? undefined : { file: files[file]!, row };
      const id = rng.float() < 0.05 && i > 0 ? `id${rng.int(i)}` : `id${i}`;
      const got = landed.add(task(id, source));
      if (reference.has(id)) {
        repeats++;
        expect(got).toEqual({ first: reference.get(id) });
      } else {
        expect(got).toBeUndefined();
        reference.set(id, source ?? null);
      }
    }
    expect(repeats).toBeGreaterThan(2_000);
    // Every landed id, asked again, reports its own first source.
    for (const [id, first] of reference) expect(landed.add(task(id))).toEqual({ first });
  });
});
