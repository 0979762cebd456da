// `bench ingest --input FILE` without --mapping: the columns are read from the file's first rows
// (any format the pipeline reads), so a file without an id column is measured, not refused
// (its tasks get content-hash ids, as a pipeline without `mapping.id` gives them).
import { UsageError } from '../../src/core/usage-error.ts';
import { readDataset } from '../../src/io/reader.ts';

export type BenchMapping = { id?: string; prompt: string; answer?: string };

const PROMPTS = ['question', 'prompt', 'problem', 'instruction', 'query', 'text', 'input'];
const ANSWERS = ['answer', 'solution', 'response', 'output', 'target'];

/** id (when an `id` column is there), prompt and answer columns, from the first batch's rows. */
export async function inferMapping(file: string): Promise<BenchMapping> {
  const columns = new Set<string>();
  for await (const batch of readDataset(file)) {
    for (const r of batch.records) for (const k of Object.keys(r.fields)) columns.add(k);
    if (columns.size > 0) break;
  }
  const prompt = PROMPTS.find((c) => columns.has(c));
  if (!prompt)
    throw new UsageError(
      `--input ${file}: no prompt column among ${[...columns].join(', ') || 'none'} (looked for ${PROMPTS.join(', ')}); name it: --mapping prompt=COLUMN`,
    );
  const answer = ANSWERS.find((c) => columns.has(c));
  return { ...(columns.has('id') ? { id: 'id' } : {}), prompt, ...(answer ? { answer } : {}) };
}
