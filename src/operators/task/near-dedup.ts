import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { LshIndex } from './lsh-index.ts';
import { signatureSimilarity } from './minhash.ts';
import { NearDedupSigner, presignedFor } from './near-dedup-signer.ts';
import { readText, TextFieldSchema } from './text-fields.ts';

export { DEFAULT_NGRAM } from './near-dedup-signer.ts';

const Params = z
  .strictObject({
    field: TextFieldSchema.default('prompt'),
    tokenizer: z.enum(['char', 'word']).default('char'),
    /** Shingle length; default 5 for `char`, 3 for `word`. */
    ngram: z.number().int().min(1).optional(),
    permutations: z.number().int().min(1).max(1024).default(128),
    /** LSH bands. */
    bands: z.number().int().min(1).default(16),
    /** Rows per band; default permutations / bands. bands × rows may be less than permutations. */
    rows: z.number().int().min(1).optional(),
    /**
     * true: a candidate (a shared band) is a duplicate only when its estimated Jaccard similarity
     * reaches the threshold. false: sharing a band is enough (Data-Juicer's rule; its recall is the
     * banding's S-curve).
     */
    verify: z.boolean().default(true),
    /** Estimated Jaccard similarity at or above which a task is a near-duplicate of an earlier kept one. */
    threshold: z.number().gt(0).max(1).default(0.8),
    lowercase: z.boolean().default(true),
    /** Seeds the hash permutations (signatures do not depend on the run seed, so runs compare). */
    seed: z.number().int().default(1),
  })
  .refine((p) => p.rows !== undefined || p.permutations % p.bands === 0, {
    message: 'permutations must be a multiple of bands (or give rows)',
    path: ['bands'],
  })
  .refine((p) => p.rows === undefined || p.bands * p.rows <= p.permutations, {
    message: 'bands × rows must not exceed permutations',
    path: ['rows'],
  });

/** Whether two signatures are equal on every row of at least one band. */
function sharesBand(sig: Uint32Array, store: Uint32Array, at: number, bands: number, rows: number): boolean {
  for (let band = 0; band < bands; band++) {
    const start = band * rows;
    let r = 0;
    while (r < rows && sig[start + r] === store[at + start + r]) r++;
    if (r === rows) return true;
  }
  return false;
}

export const nearDedupOp = defineOperator<Task, typeof Params>({
  name: 'near_dedup',
  kind: 'dedup',
  description:
    'Drop tasks whose MinHash-estimated Jaccard similarity to an earlier kept task reaches the threshold (LSH candidates); with verify: false, tasks that share an LSH band with one.',
  params: Params,
  create(p) {
    const k = p.permutations;
    const signer = new NearDedupSigner(p);
    const rowsPerBand = p.rows ?? k / p.bands;
    const index = new LshIndex(p.bands, rowsPerBand);
    const ids: string[] = [];
    let store = new Uint32Array(1024 * k);
    const own = new Uint32Array(k);
    const keys = new Int32Array(p.bands);

    return {
      name: 'near_dedup',
      kind: 'dedup',
      process(batch) {
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let candidatePairs = 0;
        for (const task of batch) {
          // A signature a worker computed for this very text, or one computed here.
          const text = readText(task, p.field);
          let sig = presignedFor(task, signer.key, text);
          if (sig === undefined) {
            sig = own;
            signer.sign(text, sig, 0);
          }
          index.bandKeys(sig, 0, keys);
          let best = -1;
          let bestSim = 0;
          index.candidates(keys, (doc) => {
            candidatePairs++;
            // Unverified, a candidate counts only when a band is truly equal (not just its 32-bit key).
            if (!p.verify && !sharesBand(sig, store, doc * k, p.bands, rowsPerBand)) return;
            const sim = signatureSimilarity(sig, 0, store, doc * k, k);
            if (sim > bestSim || (sim === bestSim && doc < best) || best < 0) {
              bestSim = sim;
              best = doc;
            }
          });
          if (best >= 0 && (!p.verify || bestSim >= p.threshold)) {
            dropped.push({
              row: task,
              reason: `near-duplicate of ${ids[best]} (similarity ${bestSim.toFixed(2)})`,
            });
            continue;
          }
          const doc = index.insert(keys);
          if ((doc + 1) * k > store.length) {
            const grown = new Uint32Array(store.length * 2);
            grown.set(store);
            store = grown;
          }
          store.set(sig, doc * k);
          ids.push(task.id);
          rows.push(task);
        }
        return {
          rows,
          dropped,
          metrics: { near_duplicates: dropped.length, candidate_pairs: candidatePairs },
        };
      },
    };
  },
});
