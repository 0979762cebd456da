import { fileURLToPath } from 'node:url';
import type { TinyPolicy, TinyPolicyOptions } from './policy.ts';
import { loadTinyPolicy } from './weights-file.ts';

/** The shipped warm-start weights (made by scripts/warm-start.ts). */
export function warmStartDir(): string {
  return fileURLToPath(new URL('../../datasets/arithmetic/warm-start/', import.meta.url));
}

/** The tiny policy as the shipped warm start left it: arithmetic half-learnt, ready for RL. */
export function loadWarmStart(options: TinyPolicyOptions = {}): Promise<TinyPolicy> {
  return loadTinyPolicy(warmStartDir(), options);
}
