import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { translateRecipe, workersForNp } from '../../src/recipes/translate-recipe.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-dj-np-');
mkdirSync(join(dir, 'raw'));
writeFileSync(
  join(dir, 'raw', 'rows.jsonl'),
  ['one short line of text here', 'another line of text, kept too', 'x']
    .map((text, i) => JSON.stringify({ id: i, text }))
    .join('\n'),
);
const recipe = (np: number) => ({
  dataset_path: './raw/rows.jsonl',
  export_path: './out/kept.jsonl',
  np,
  process: [{ text_length_filter: { min_len: 5 } }],
});
const operators = taskOperatorRegistry().names();
const translate = (np: number, cores: number) =>
  translateRecipe(recipe(np), { file: join(dir, 'r.yaml'), cwd: dir, operators, cores });

describe("Data-Juicer's np", () => {
  it('is capped at the cores available, and the note says so', () => {
    const t = translate(50, 2);
    expect(t.pipeline['workers']).toBe(2);
    expect(t.notes[0]).toBe(
      'np: 50 runs the row-wise operators on 2 worker thread(s) (workers: 2; capped: 2 core(s) available)',
    );
  });

  it('is kept as it is when the machine has the cores', () => {
    const t = translate(4, 16);
    expect(t.pipeline['workers']).toBe(4);
    expect(t.notes[0]).toBe('np: 4 runs the row-wise operators on 4 worker thread(s) (workers: 4)');
  });

  it('never goes below one worker or above 64', () => {
    expect([workersForNp(1, 1), workersForNp(3, 1), workersForNp(200, 128), workersForNp(8, 0)]).toEqual([
      1, 1, 64, 1,
    ]);
  });

  it('winnow run says the cap in its summary, in one line, and keeps the same rows', () => {
    writeFileSync(
      join(dir, 'np.yaml'),
      `dataset_path: ./raw/rows.jsonl\nexport_path: ./out/np.jsonl\nnp: 500\nprocess:\n  - text_length_filter:\n      min_len: 5\n`,
    );
    const r = winnow(['run', 'np.yaml', '--db', join(dir, 'db')], { cwd: dir });
    expect(r.stderr).not.toContain('Error');
    expect(r.code).toBe(0);
    const cores = Math.min(availableParallelism(), 64);
    const line = `np: 500 runs the row-wise operators on ${cores} worker thread(s) (workers: ${cores}; capped: ${availableParallelism()} core(s) available)`;
    expect(r.stdout.split('\n')).toContain(line);
    const kept = readFileSync(join(dir, 'out', 'np.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(kept.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([0, 1]);
  });
});
