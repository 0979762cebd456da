import type { Task } from '../../core/task.ts';
import { MinHasher } from './minhash.ts';
import type { TextField } from './text-fields.ts';
import { readText } from './text-fields.ts';

/** Default shingle length per tokenizer: 5 characters, or 3 words. */
export const DEFAULT_NGRAM = { char: 5, word: 3 } as const;

export interface SignerParams {
  field: TextField;
  tokenizer: 'char' | 'word';
  ngram?: number | undefined;
  permutations: number;
  seed: number;
  lowercase: boolean;
}

/**
 * near_dedup's per-row half: a task's MinHash signature depends on its text and the params only,
 * so workers compute signatures while the main thread keeps the (ordered, stateful) LSH index.
 * `key` names everything a signature depends on besides the text.
 */
export class NearDedupSigner {
  readonly key: string;
  readonly permutations: number;
  readonly field: TextField;
  private readonly hasher: MinHasher;

  constructor(p: SignerParams) {
    const ngram = p.ngram ?? DEFAULT_NGRAM[p.tokenizer];
    this.field = p.field;
    this.permutations = p.permutations;
    this.hasher = new MinHasher({
      tokenizer: p.tokenizer,
      ngram,
      permutations: p.permutations,
      seed: p.seed,
      lowercase: p.lowercase,
    });
    this.key = JSON.stringify([p.field, p.tokenizer, ngram, p.permutations, p.seed, p.lowercase]);
  }

  sign(text: string, out: Uint32Array, offset = 0): void {
    this.hasher.signature(text, out, offset);
  }

  /** Signatures of `tasks`, one after another in one buffer (to hand to another thread). */
  signAll(tasks: readonly Task[]): Uint32Array {
    const k = this.permutations;
    const out = new Uint32Array(tasks.length * k);
    for (let i = 0; i < tasks.length; i++) this.sign(readText(tasks[i]!, this.field), out, i * k);
    return out;
  }
}

/**
 * Signatures computed elsewhere (a worker), keyed by the task object. near_dedup uses one only
 * when its params key and the task's current text are the ones it was computed for, so a step
 * between that changed the text cannot make it use a stale signature.
 */
const PRESIGNED = new WeakMap<Task, { key: string; text: string; sig: Uint32Array }>();

export function presign(task: Task, key: string, text: string, sig: Uint32Array): void {
  PRESIGNED.set(task, { key, text, sig });
}

export function presignedFor(task: Task, key: string, text: string): Uint32Array | undefined {
  const p = PRESIGNED.get(task);
  if (p === undefined || p.key !== key || p.text !== text) return undefined;
  PRESIGNED.delete(task);
  return p.sig;
}
