import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTaskPipelineFile } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { prepareRft } from '../../src/lifecycle/run/rft-build.ts';
import { RftConfigSchema } from '../../src/lifecycle/run/rft-config.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { smallRftRaw } from '../helpers/rft.ts';
import { tinyEmbedderDir } from '../helpers/tiny-embedder.ts';
import { tempDir } from '../helpers/tmp.ts';
import { writeYaml } from '../lifecycle/rft-files.ts';

const dir = tempDir('winnow-diverse-rft-');
const db = join(dir, 'db');
const model = tinyEmbedderDir();
const REPO = join(import.meta.dirname, '..', '..');

/** Word problems in three families; each family's prompts share most words. */
const PROMPTS = [
  ...[3, 4, 5, 6].map((n) => `Tom has ${n} apples and buys one more apple. How many apples does Tom have?`),
  ...[2, 7, 8].map((n) => `A train leaves the city at ${n} and arrives at noon. How many hours is the trip?`),
  ...[9, 10, 11].map((n) => `Each student reads ${n} books a week. How many books does the class read?`),
];

async function prepare(runId: string, selector: Record<string, unknown>, table = 'tasks') {
  const config = RftConfigSchema.parse({
    ...smallRftRaw(runId),
    tasks: { table },
    selector,
    heldout: undefined,
  });
  return prepareRft(config, { baseDir: REPO, dbDir: db, runDir: join(dir, runId), runId, seed: 3 });
}

describe('the diverse selector in an RFT run over embedded tasks', () => {
  it('tasks embedded by a task pipeline reach the selector; its picks are deterministic and spread', async () => {
    writeFileSync(
      join(dir, 'p.jsonl'),
      `${PROMPTS.map((p, i) => JSON.stringify({ id: `q${i}`, q: p, a: '1' })).join('\n')}\n`,
    );
    const file = writeYaml(join(dir, 'embed.yaml'), {
      name: 'embed',
      input: { path: 'p.jsonl' },
      mapping: { taskset: 'arithmetic', id: 'id', prompt: 'q', answer: 'a' },
      operators: [{ op: 'embed', params: { model: { path: model } } }],
    });
    expect((await runTaskPipelineFile(file, { registry: taskOperatorRegistry(), dbDir: db })).tasksOut).toBe(
      10,
    );

    const diverse = { type: 'diverse', params: { selector: { type: 'sequential' }, lambda: 0.3, pool: 3 } };
    const a = await prepare('run-a', diverse);
    const b = await prepare('run-b', diverse);
    const picks = a.parts.selector.select(3);
    expect(b.parts.selector.select(3)).toEqual(picks);
    // Sequential alone would take q0 q1 q2 (all about Tom's apples); diversity takes one per family.
    const plain = await prepare('run-c', { type: 'sequential' });
    expect(plain.parts.selector.select(3)).toEqual(['q0', 'q1', 'q2']);
    // Candidates q0…q8: the first of each family, in the inner order.
    expect(picks).toEqual(['q0', 'q4', 'q7']);
    const family = (id: string) =>
      Number(id.slice(1)) < 4 ? 'apples' : Number(id.slice(1)) < 7 ? 'train' : 'books';
    expect(new Set(picks.map(family))).toEqual(new Set(['apples', 'train', 'books']));
  });
});
