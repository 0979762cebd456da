import type { Experience } from '../../core/experience.ts';

/**
 * A 0/1 array aligned with `tokens` marking the policy's own (trainable) tokens.
 * `actionMask` may cover all of `tokens` or only the response part (after `promptLength`);
 * with no mask, every response token counts. Returns a string saying what is wrong when the
 * mask fits neither layout.
 */
export function actionPositions(e: Experience): number[] | string {
  const n = e.tokens.length;
  const p = Math.min(e.promptLength, n);
  const mask = e.actionMask;
  if (mask.length === n && n > 0) return mask.slice();
  const out = new Array<number>(n).fill(0);
  if (mask.length === 0) {
    for (let i = p; i < n; i++) out[i] = 1;
    return out;
  }
  if (mask.length === n - p) {
    for (let i = 0; i < mask.length; i++) out[p + i] = mask[i]!;
    return out;
  }
  return `actionMask has ${mask.length} entries but tokens has ${n} (response part ${n - p})`;
}

/** Number of policy tokens in the response (environment tokens of multi-turn rollouts excluded). */
export function responseTokenCount(e: Experience): number | string {
  const pos = actionPositions(e);
  if (typeof pos === 'string') return pos;
  let c = 0;
  for (const v of pos) c += v;
  return c;
}
