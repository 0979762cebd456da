import * as tf from '@tensorflow/tfjs';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import type { GenerateRequest } from '../models/rollout-model.ts';
import { headLogits, oneHotRows, stackStep, type TinyWeights } from './gru.ts';
import { sampleToken } from './token-sampler.ts';
import { EOS_ID, PAD_ID } from './vocab.ts';

/** Default completion budget: arithmetic answers are at most 6 characters plus EOS. */
export const TINY_DEFAULT_MAX_TOKENS = 8;

/** One sample to draw: its request, its own random stream and its settings. */
export interface SampleRow {
  req: number;
  rng: Rng;
  temperature: number;
  maxTokens: number;
}

/**
 * The sample rows of a batch, request by request (`n` each), every setting checked. A request
 * without a seed takes the next draw of `seeds`, so results depend on its place in the stream only.
 */
export function sampleRows(requests: readonly GenerateRequest[], seeds: Rng): SampleRow[] {
  const rows: SampleRow[] = [];
  requests.forEach((r, i) => {
    const bad = (key: string, message: string) => new ConfigError({ path: `requests[${i}].${key}`, message });
    if (!Number.isInteger(r.n) || r.n < 0) throw bad('n', `expected a non-negative integer, got ${r.n}`);
    const temperature = r.temperature ?? 1;
    if (!(temperature >= 0)) throw bad('temperature', `expected >= 0, got ${temperature}`);
    const maxTokens = r.maxTokens ?? TINY_DEFAULT_MAX_TOKENS;
    if (!Number.isInteger(maxTokens) || maxTokens < 1)
      throw bad('maxTokens', `expected an integer >= 1, got ${maxTokens}`);
    const base = new Rng(r.seed ?? seeds.nextUint32());
    for (let j = 0; j < r.n; j++) rows.push({ req: i, rng: base.fork(j), temperature, maxTokens });
  });
  return rows;
}

/**
 * The prompt pass over the distinct requests, left-padded so every prompt ends at the last step
 * (padding masked out of the state), then each request's final state fanned out to its sample rows.
 */
export function promptStates(
  w: TinyWeights,
  prompts: readonly number[][],
  rows: readonly SampleRow[],
): tf.Tensor2D[] {
  const hidden = w.hidden;
  const nReq = prompts.length;
  const pMax = Math.max(...prompts.map((p) => p.length));
  return tf.tidy(() => {
    let hs: tf.Tensor2D[] = w.layers.map(() => tf.zeros([nReq, hidden]) as tf.Tensor2D);
    for (let t = 0; t < pMax; t++) {
      // Fresh arrays per step: some backends keep a reference to a tensor's source array.
      const col = new Int32Array(nReq);
      const keep = new Uint8Array(nReq * hidden);
      let padded = false;
      prompts.forEach((p, r) => {
        const k = t - (pMax - p.length);
        col[r] = k >= 0 ? p[k]! : PAD_ID;
        keep.fill(k >= 0 ? 1 : 0, r * hidden, (r + 1) * hidden);
        if (k < 0) padded = true;
      });
      const x = oneHotRows(col, w.vocabSize);
      hs = stackStep(
        w,
        x,
        hs,
        padded ? (tf.tensor2d(keep, [nReq, hidden], 'bool') as tf.Tensor2D) : undefined,
      );
    }
    const rowReq = tf.tensor1d(
      Int32Array.from(rows, (row) => row.req),
      'int32',
    );
    return hs.map((h) => tf.gather(h, rowReq) as tf.Tensor2D);
  });
}

/**
 * Sample every row from `start` (the states after its prompt; disposed here) until it stops (EOS)
 * or reaches its budget, one forward step for all rows per position.
 */
export function sampleFrom(
  w: TinyWeights,
  start: tf.Tensor2D[],
  rows: readonly SampleRow[],
): { tokens: number[][]; logprobs: number[][] } {
  const nRows = rows.length;
  const V = w.vocabSize;
  const tokens: number[][] = rows.map(() => []);
  const logprobs: number[][] = rows.map(() => []);
  const done = new Uint8Array(nRows);
  const stepMax = Math.max(...rows.map((r) => r.maxTokens));
  let states = start;
  try {
    for (let step = 0; step < stepMax; step++) {
      const logits = tf.tidy(() => headLogits(w, states[states.length - 1]!));
      const values = logits.dataSync() as Float32Array;
      logits.dispose();
      const next = new Int32Array(nRows);
      let active = 0;
      for (let i = 0; i < nRows; i++) {
        const row = rows[i]!;
        if (done[i] || step >= row.maxTokens) {
          done[i] = 1;
          next[i] = EOS_ID;
          continue;
        }
        const { token, logprob } = sampleToken(values, i * V, V, row.temperature, row.rng);
        tokens[i]!.push(token);
        logprobs[i]!.push(logprob);
        next[i] = token;
        if (token === EOS_ID) done[i] = 1;
        else active++;
      }
      if (active === 0 || step === stepMax - 1) break;
      const prev = states;
      states = tf.tidy(() => stackStep(w, oneHotRows(next, V), prev));
      for (const s of prev) s.dispose();
    }
  } finally {
    for (const s of states) s.dispose();
  }
  return { tokens, logprobs };
}
