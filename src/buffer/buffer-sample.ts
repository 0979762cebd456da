import { WinnowError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import type { RejectedInput } from '../core/rejected.ts';
import { hashSeed, Rng } from '../core/rng.ts';
import type { ExperienceBufferConfig } from './experience-config.ts';
import type { JournalEntry } from './experience-journal.ts';
import type { SampleOptions, SampleResult, SkippedExperience } from './experience-results.ts';
import type { ExperienceSlots } from './experience-slots.ts';
import type { ExperienceStorage } from './experience-storage.ts';
import type { ReplayRatioLimiter } from './rate-limiter.ts';
import type { RejectedStore } from './rejected-store.ts';
import type { CandidateView, Sampler } from './samplers/sampler.ts';
import type { TableUpkeep } from './table-upkeep.ts';
import type { UseState } from './use-state.ts';

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
  const table = p.config.table;
  const sl = p.slots;
  if (!Number.isInteger(step) || step < 0)
    throw new WinnowError(`buffer '${table}': sample step must be a non-negative integer, got ${step}`);
  if (!Number.isInteger(n) || n < 0)
    throw new WinnowError(`buffer '${table}': sample size must be a non-negative integer, got ${n}`);
  if (step <= p.use.lastAcked)
    throw new WinnowError(
      `buffer '${table}': sample step ${step} is not after the last acknowledged step ${p.use.lastAcked}`,
    );
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
  const eligible = p.use.eligibility(step, now, minVersion, new Set(skippedSlots));
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
  const stream = p.config.randomStream ?? table;
  const rng = new Rng(hashSeed(p.config.seed, 'sample', stream, step, p.callIndex(step)));
  const chosen = p.sampler.select(view, n, { keepGroups: p.config.keepGroups, rng });

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
  // The lease commit and the payload read are independent: run them together.
  const [leased, fetched] = await Promise.allSettled([
    p.storage.journal.append(entries),
    p.storage.take(chosen.slots),
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
  const rows = fetched.value;
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
  if (skipped.length > 0) {
    p.rejected.add(
      skipped.map(
        (k): RejectedInput => ({
          step: opts.skipStepName ?? 'sample:staleness',
          reason: k.reason,
          rowId: k.id,
          payload: JSON.stringify({ modelVersion: k.modelVersion, trainStep: step }),
          runId: p.config.runId,
        }),
      ),
    );
    await p.rejected.flush();
  }
  await p.upkeep.committed(0, entries.length > 0 ? 1 : 0);
  return { step, experiences, weights: chosen.weights, skipped, requested: n };
}
