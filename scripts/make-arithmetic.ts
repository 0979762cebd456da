/**
 * Regenerates datasets/arithmetic/{train,heldout}.jsonl deterministically:
 *   npx node scripts/make-arithmetic.ts [--out datasets/arithmetic] [--check]
 * The held-out set is drawn first; the training set excludes its prompts. `--check` compares
 * with the files on disk instead of writing (exit code 1 on any difference).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ARITHMETIC_DATASET_RECIPE, arithmeticDatasets } from '../src/explorer/tasks/arithmetic-datasets.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'datasets/arithmetic' },
    check: { type: 'boolean', default: false },
  },
});
const out = resolve(values.out!);
const { train, heldout } = arithmeticDatasets();
const toJsonl = (rows: readonly object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const files: Record<string, string> = { 'train.jsonl': toJsonl(train), 'heldout.jsonl': toJsonl(heldout) };

let bad = 0;
for (const [name, text] of Object.entries(files)) {
  const path = join(out, name);
  if (values.check) {
    const onDisk = await readFile(path, 'utf8').catch(() => '');
    const same = onDisk === text;
    if (!same) bad++;
    console.log(`${name}: ${same ? 'matches' : 'DIFFERS from'} the recipe`);
  } else {
    await mkdir(out, { recursive: true });
    await writeFile(path, text);
    console.log(`${name}: ${text.split('\n').length - 1} tasks, ${(text.length / 1024).toFixed(0)} KiB`);
  }
}
console.log(`recipe: ${JSON.stringify(ARITHMETIC_DATASET_RECIPE)}`);
const byDomain = new Map<string, [number, number]>();
for (const t of train)
  byDomain.set(String(t.meta.domain), [
    (byDomain.get(String(t.meta.domain))?.[0] ?? 0) + 1,
    byDomain.get(String(t.meta.domain))?.[1] ?? 0,
  ]);
for (const t of heldout)
  byDomain.set(String(t.meta.domain), [
    byDomain.get(String(t.meta.domain))?.[0] ?? 0,
    (byDomain.get(String(t.meta.domain))?.[1] ?? 0) + 1,
  ]);
console.log('domain      train  heldout');
for (const [d, [a, b]] of byDomain)
  console.log(`${d.padEnd(10)} ${String(a).padStart(6)} ${String(b).padStart(8)}`);
process.exitCode = bad > 0 ? 1 : 0;
