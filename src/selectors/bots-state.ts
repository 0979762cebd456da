// BOTS's checkpoint: every task's (α, β) materialised, the explicit set and its stamps, the lazy
// track's scalars, the clipped groups, and the optional parts' own states. On load the explicit
// set is rebuilt and every other task is placed back on its track.
import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import type { DomainCapability } from './bots-domain-capability.ts';
import type { DomainTrack } from './bots-domain-track.ts';
import { ExplicitSlots } from './bots-explicit.ts';
import type { BotsPosterior } from './bots-posterior.ts';
import { GROUPED_ABOVE, GROUPED_BELOW, SHARED } from './bots-search.ts';
import type { TaskOffsets } from './bots-task-offset.ts';
import { decodeArray, decodeNumber, encodeArray, encodeNumber } from './state-codec.ts';

/** The selector-level numbers a BOTS checkpoint carries beside the posterior. */
export interface BotsScalars {
  capability: number;
  rho: number;
  stepNo: number;
  lastStep: number;
}

/** The optional parts (present when their params ask for them). */
export interface BotsParts {
  domainCap: DomainCapability | null;
  offsets: TaskOffsets | null;
  track: DomainTrack | null;
}

export function saveBots(
  post: BotsPosterior,
  s: BotsScalars,
  parts: BotsParts,
): { [key: string]: JsonValue } {
  const { alpha, beta } = post.materialise();
  const ex = post.ex;
  return {
    alpha: encodeArray(alpha),
    beta: encodeArray(beta),
    capability: encodeNumber(s.capability),
    rho: s.rho,
    lazy: [post.shared.a, post.shared.a2, post.shared.b, post.shared.e],
    explicit: encodeArray(ex.task.slice(0, ex.count)),
    observedAt: encodeArray(ex.stamp.slice(0, ex.count)),
    clipRange: [post.cSeenMin, post.cSeenMax],
    steps: s.stepNo,
    lastStep: encodeNumber(s.lastStep),
    ...(parts.domainCap ? { domainCapability: parts.domainCap.save() } : {}),
    ...(parts.offsets ? { taskOffsets: parts.offsets.save() } : {}),
    ...(parts.track ? { domainTrack: parts.track.save() } : {}),
    ...(post.sides ? { clipGroups: post.sides.map((side) => side.save()) } : {}),
  };
}

/** Restore the posterior and the optional parts of n tasks; returns the selector-level numbers. */
export function loadBots(
  post: BotsPosterior,
  data: { [key: string]: JsonValue },
  n: number,
  parts: BotsParts,
): BotsScalars {
  const alpha = decodeArray(data['alpha'], 'float64', 'bots alpha', n);
  const beta = decodeArray(data['beta'], 'float64', 'bots beta', n);
  const { rho, lazy, clipRange, steps } = data;
  const nums = (v: unknown, len: number) =>
    Array.isArray(v) && v.length === len && v.every((x) => typeof x === 'number');
  if (typeof rho !== 'number' || typeof steps !== 'number' || !nums(lazy, 4) || !nums(clipRange, 2))
    throw new DataError({
      message: 'bots.load: state.data needs rho, steps, lazy (4 numbers) and clipRange (2 numbers)',
    });
  const list = decodeArray(data['explicit'], 'int32', 'bots explicit');
  const scalars: BotsScalars = {
    capability: decodeNumber(data['capability'], 'bots capability'),
    rho,
    stepNo: steps,
    // States written before `updatePer` existed carry no step: the next feedback starts a step.
    lastStep: data['lastStep'] === undefined ? Number.NaN : decodeNumber(data['lastStep'], 'bots lastStep'),
  };
  const [a, a2, b, e] = lazy as [number, number, number, number];
  post.shared = { a, a2, b, e };
  post.where = new Uint8Array(n);
  post.ex = new ExplicitSlots(n);
  const observedAt = decodeArray(data['observedAt'], 'int32', 'bots observedAt', list.length);
  list.forEach((k, j) => {
    if (k < 0 || k >= n) throw new DataError({ message: `bots.load: explicit task ${k} out of range` });
    post.makeExplicit(k, alpha[k]!, beta[k]!);
    post.ex.stamp[j] = observedAt[j]!;
  });
  if (parts.domainCap) parts.domainCap.load(data['domainCapability']);
  if (parts.offsets) parts.offsets.load(data['taskOffsets'], n);
  if (parts.track) parts.track.load(data['domainTrack']);
  post.sides = null;
  post.rebuildIndexes();
  [post.cSeenMin, post.cSeenMax] = clipRange as [number, number];
  loadClipGroups(post, data['clipGroups'], alpha, beta);
  return scalars;
}

/** Restore the clipped tracks, and place every task that is not explicit on its group. */
function loadClipGroups(
  post: BotsPosterior,
  groups: JsonValue | undefined,
  alpha: Float64Array,
  beta: Float64Array,
): void {
  const before = groups === undefined;
  if (before && post.cSeenMin >= 0 && post.cSeenMax <= 1) return;
  if (!before && (!Array.isArray(groups) || groups.length !== 4))
    throw new DataError({ message: 'bots.load: state.data.clipGroups must hold the 4 sides' });
  post.buildSides();
  post.sides!.forEach((side, i) => {
    // A state from before clipped tracks: every task that clamped is explicit in it, so one empty
    // group (null scalars) stands for all the positions clamped so far.
    const saved = before
      ? [[side.below ? post.cSeenMin : post.cSeenMax, null, null, null, null]]
      : (groups as JsonValue[])[i];
    side.load(saved, post.delta, `state.data.clipGroups[${i}]`);
    const code = side.below ? GROUPED_BELOW : GROUPED_ABOVE;
    for (let j = 0; j < side.seen; j++) {
      const k = side.task[j]!;
      if (post.where[k] !== SHARED) continue;
      if (before) post.makeExplicit(k, alpha[k]!, beta[k]!);
      else post.where[k] = code;
    }
  });
}
