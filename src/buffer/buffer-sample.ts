import { WinnowError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import type { RejectedInput } from '../core/rejected.ts';
import { hashSeed, Rng } from '../core/rng.ts';
import type { RejectedStore } from '../store/rejected-store.ts';
import type { ExperienceBufferConfig } from './experience-config.ts';
import type { SampleOptions, SampleResult, SkippedExperience } from './experience-results.ts';
import type { ExperienceSlots } from './index/experience-slots.ts';
import type { UseState } from './index/use-state.ts';
import type { ReplayRatioLimiter } from './rate-limiter.ts';
import type { CandidateView, Sampler, Selection } from './samplers/sampler.ts';
import type { JournalEntry } from './storage/experience-journal.ts';
import type { ExperienceStorage } from './storage/experience-storage.ts';
import type { TableUpkeep } from './storage/table-upkeep.ts';

/** The buffer's parts one `sample` call reads and updates. */
export interface SampleParts {
  config: ExperienceBufferConfig;
  slots: ExperienceSlots;
  use: UseState;
  sampler: Sampler;
  storage: ExperienceStorage;
  rejected: RejectedStore;
  rateLimiter: ReplayRatioLimiter | null;
  upkeep: TableUpkeep;
  /** The index of this call among the calls for `step` (0 for the first): part of the random seed. */
  callIndex(step: number): number;
}

/**
 * One `ExperienceBuffer.sample`: choose up to `n` rows from the in-memory index (no table scan),
 * then — in parallel — commit their leases (one journal append) and take their payloads by row id.
 * Returns only once the lease commit landed; a failed take drops the leases it committed.
 */
export async function sampleExperiences(
  p: SampleParts,
  n: number,
  opts: SampleOptions,
): Promise<SampleResult> {
  const { step } = opts;
  checkSampleCall(p, n, step, opts.pool);
  const sl = p.slots;
  if (p.rateLimiter && !p.rateLimiter.canSample(n, sl.live))
    return {
      step,
      experiences: [],
      weights: [],
      skipped: [],
      requested: n,
      blocked: p.rateLimiter.whySampleBlocked(n, sl.live),
    };
  const now = opts.now ?? Date.now();
  const version = opts.modelVersion ?? step;
  const minVersion = opts.maxStaleness === undefined ? Number.NEGATIVE_INFINITY : version - opts.maxStaleness;
  const skippedSlots = p.use.stale(minVersion);
  const chosen = chooseSlots(p, n, step, now, minVersion, skippedSlots, opts.pool ?? 'any');
  const skipReason = (s: number) =>
    `stale: model version ${sl.modelVersion[s]} < ${minVersion} (version ${version} − maxStaleness ${opts.maxStaleness})`;
  const entry = (kind: 'use' | 'skip', s: number): JournalEntry => ({
    kind,
    seq: sl.seq[s]!,
    id: sl.ids[s]!,
    step,
    at: now,
    reason: kind === 'skip' ? skipReason(s) : '',
  });
  const entries = [...chosen.slots.map((s) => entry('use', s)), ...skippedSlots.map((s) => entry('skip', s))];
  const rows = await leaseAndTake(p, step, entries, chosen.slots);
  const skipped: SkippedExperience[] = skippedSlots.map((s) => ({
    id: sl.ids[s]!,
    modelVersion: sl.modelVersion[s]!,
    reason: skipReason(s),
  }));
  const experiences: Experience[] = chosen.slots.map((s) => {
    const exp = rows.get(s)!;
    const priority = sl.priority[s]!;
    sl.addLease(s, { step, at: now, kind: 'use' });
    p.use.refresh(s);
    exp.useCount = sl.effectiveUses(s);
    exp.priority = priority;
    return exp;
  });
  p.sampler.prepare?.(experiences);
  for (const s of skippedSlots) sl.addLease(s, { step, at: now, kind: 'skip' });
  p.rateLimiter?.onSample(experiences.length);
  await recordSkipped(p, skipped, step, opts.skipStepName);
  await p.upkeep.committed(0, entries.length > 0 ? 1 : 0);
  return { step, experiences, weights: chosen.weights, skipped, requested: n };
}

function checkSampleCall(p: SampleParts, n: number, step: number, pool: unknown): void {
  const table = p.config.table;
  if (!Number.isInteger(step) || step < 0)
    throw new WinnowError(`buffer '${table}': sample step must be a non-negative integer, got ${step}`);
  if (!Number.isInteger(n) || n < 0)
    throw new WinnowError(`buffer '${table}': sample size must be a non-negative integer, got ${n}`);
  if (pool !== undefined && pool !== 'any' && pool !== 'fresh' && pool !== 'past')
    throw new WinnowError(`buffer '${table}': sample pool must be any, fresh or past, got ${String(pool)}`);
  if (step <= p.use.lastAcked)
    throw new WinnowError(
      `buffer '${table}': sample step ${step} is not after the last acknowledged step ${p.use.lastAcked}`,
    );
}

/** The sampler's choice over the index (no table read), with the call's seeded random stream. */
function chooseSlots(
  p: SampleParts,
  n: number,
  step: number,
  now: number,
  minVersion: number,
  skippedSlots: number[],
  pool: NonNullable<SampleOptions['pool']>,
): Selection {
  const sl = p.slots;
  const usable = p.use.eligibility(step, now, minVersion, new Set(skippedSlots));
  const eligible =
    pool === 'any' ? usable : (s: number) => usable(s) && (sl.effectiveUses(s) === 0) === (pool === 'fresh');
  const view: CandidateView = {
    ...p.use.bounds(),
    seq: sl.seq,
    priority: sl.priority,
    group: sl.group,
    eligible,
    facts: (s) => sl.facts(s),
    uses: (s) => sl.effectiveUses(s),
    size: sl.size,
    alive: (s) => sl.alive[s] === 1,
  };
  const stream = p.config.randomStream ?? p.config.table;
  const rng = new Rng(hashSeed(p.config.seed, 'sample', stream, step, p.callIndex(step)));
  return p.sampler.select(view, n, { keepGroups: p.config.keepGroups, rng, step });
}

/**
 * Commit the leases (one journal append) and take the chosen rows' payloads, in parallel; returns
 * only once the lease commit landed. A failed take drops the leases it committed.
 */
async function leaseAndTake(
  p: SampleParts,
  step: number,
  entries: JournalEntry[],
  slots: number[],
): Promise<Map<number, Experience>> {
  const [leased, fetched] = await Promise.allSettled([
    p.storage.journal.append(entries),
    p.storage.take(slots),
  ]);
  if (leased.status === 'rejected') throw leased.reason;
  if (fetched.status === 'rejected') {
    await p.upkeep.idle();
    await p.storage.journal.dropEntries(
      step,
      entries.map((e) => e.seq),
    );
    throw fetched.reason;
  }
  return fetched.value;
}

/** Record the rows skipped as stale in the rejected table. */
async function recordSkipped(
  p: SampleParts,
  skipped: readonly SkippedExperience[],
  step: number,
  stepName: string | undefined,
): Promise<void> {
  if (skipped.length === 0) return;
  p.rejected.add(
    skipped.map(
      (k): RejectedInput => ({
        step: stepName ?? 'sample:staleness',
        reason: k.reason,
        rowId: k.id,
        payload: JSON.stringify({ modelVersion: k.modelVersion, trainStep: step }),
        runId: p.config.runId,
      }),
    ),
  );
  await p.rejected.flush();
}
