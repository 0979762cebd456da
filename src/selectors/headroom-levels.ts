import { hashSeed, Rng } from '../core/rng.ts';

/**
 * The per-category part of the `headroom` selector: which tasks stand for each category (a fixed,
 * seeded sample, so a category's headroom costs `sample` predictions however large it is), and how
 * much each category still has to learn, read from a model's predicted pass rates.
 */

/** Up to `size` members of each category, drawn without replacement by a stream seeded from `seed`. */
export function sampleMembers(members: readonly Int32Array[], size: number, seed: number): Int32Array[] {
  const rng = new Rng(hashSeed('headroom-sample', seed));
  return members.map((m) => {
    if (m.length <= size) return m.slice();
    return Int32Array.from(rng.sampleDistinct(m.length, size), (i) => m[i]!);
  });
}

/**
 * Headroom of each category: 1 − the mean predicted pass rate of its sampled members, i.e. the
 * share of its tasks the learner is still expected to fail. `predicted` holds the predictions of
 * the concatenated samples, in the order of `samples`.
 */
export function categoryHeadroom(samples: readonly Int32Array[], predicted: ArrayLike<number>): Float64Array {
  const out = new Float64Array(samples.length);
  let at = 0;
  for (let c = 0; c < samples.length; c++) {
    const len = samples[c]!.length;
    let s = 0;
    let used = 0;
    for (let i = 0; i < len; i++) {
      const v = predicted[at + i]!;
      if (Number.isFinite(v)) {
        s += v;
        used++;
      }
    }
    at += len;
    out[c] = used > 0 ? 1 - s / used : 1;
  }
  return out;
}

/**
 * Up to `m` distinct members of `members` not in `taken`, uniformly (rejection, then a scan from a
 * random start when the category is nearly used up).
 */
export function drawCandidates(
  rng: Rng,
  members: Int32Array,
  taken: ReadonlySet<number>,
  m: number,
): number[] {
  const out: number[] = [];
  const local = new Set<number>();
  for (let tries = 0; tries < 8 * m && out.length < m; tries++) {
    const k = members[rng.int(members.length)]!;
    if (taken.has(k) || local.has(k)) continue;
    local.add(k);
    out.push(k);
  }
  if (out.length === 0) {
    const start = rng.int(members.length);
    for (let i = 0; i < members.length && out.length < m; i++) {
      const k = members[(start + i) % members.length]!;
      if (!taken.has(k) && !local.has(k)) {
        local.add(k);
        out.push(k);
      }
    }
  }
  return out;
}

/**
 * The score of a candidate task (higher is better): its learnability p(1 − p) at the predicted
 * pass rate p, scaled to [0, 1], times its category's headroom to the power κ. With κ = 0 this is
 * the plain "closest to 0.5" ranking; with κ > 0 a mixed group on a nearly solved category weighs
 * less than one on a category with most of its tasks still failed.
 */
export function headroomScore(p: number, headroom: number, kappa: number): number {
  if (!Number.isFinite(p)) return 0;
  const learnability = 4 * p * (1 - p);
  return kappa === 0 ? learnability : learnability * Math.max(0, headroom) ** kappa;
}

/**
 * Each category's share of a batch: its expected learnability (the mean of 4p(1 − p) over its
 * sample) times its headroom^κ, mixed with a uniform share `explore` so that no category goes
 * unmeasured (a level the learner forgets shows up again). Categories with no tasks get 0.
 */
export function categoryShares(
  learnability: ArrayLike<number>,
  headroom: ArrayLike<number>,
  kappa: number,
  explore: number,
  sizes: ArrayLike<number>,
): Float64Array {
  const c = learnability.length;
  const w = new Float64Array(c);
  let total = 0;
  let live = 0;
  for (let j = 0; j < c; j++) {
    if (sizes[j]! === 0) continue;
    live++;
    w[j] = Math.max(0, learnability[j]!) * Math.max(0, headroom[j]!) ** kappa;
    total += w[j]!;
  }
  const out = new Float64Array(c);
  for (let j = 0; j < c; j++) {
    if (sizes[j]! === 0) continue;
    const focused = total > 0 ? w[j]! / total : 1 / live;
    out[j] = (1 - explore) * focused + explore / live;
  }
  return out;
}

/**
 * Each category's measured learnability: the posterior mean (a + 1) / (a + b + 2) of the share of
 * its groups that came back mixed, where a and b count mixed and uniform groups with forgetting
 * (they were multiplied by λ at every feedback call since), so a category that stops or starts
 * paying shows it within about 1 / (1 − λ) calls. An unvisited category reads 0.5.
 */
export function mixedRate(mixed: ArrayLike<number>, uniform: ArrayLike<number>): Float64Array {
  return Float64Array.from(
    { length: mixed.length },
    (_, c) => (mixed[c]! + 1) / (mixed[c]! + uniform[c]! + 2),
  );
}
