import { join } from 'node:path';
import type { JsonValue } from '../core/task.ts';
import { type CheckpointState, CheckpointStore } from '../lifecycle/run/checkpoint-files.ts';
import type { RunBuffer } from '../lifecycle/run/rft-parts.ts';
import type { Selector, SelectorState } from '../selectors/types.ts';
import type { SelectorStateStore } from '../store/selector-state-store.ts';
import { sqlString } from '../store/sql.ts';
import { RequestLog } from './request-log.ts';

/** The numbers a serve run carries between requests (and across restarts). */
export interface ServeCounters {
  /** Mutating requests served: each one is a checkpoint, named after it. */
  revision: number;
  selectSteps: number;
  feedbackSteps: number;
  /** The newest lease handed out (a lease is a buffer train step). */
  leases: number;
  acknowledgedThrough: number;
  /** The newest model version among written experiences (the default for sample's staleness rules). */
  latestModelVersion: number;
  received: number;
  kept: number;
  dropped: number;
  sampled: number;
  skippedStale: number;
}

export const emptyCounters = (): ServeCounters => ({
  revision: 0,
  selectSteps: 0,
  feedbackSteps: 0,
  leases: 0,
  acknowledgedThrough: 0,
  latestModelVersion: 0,
  received: 0,
  kept: 0,
  dropped: 0,
  sampled: 0,
  skippedStale: 0,
});

/** How many revisions of selector state a run keeps in `selector_states` (older ones are pruned). */
const KEEP_SELECTOR_STATES = 3;
const PRUNE_EVERY = 50;

/**
 * A serve run's checkpoints: the run loop's state file (src/lifecycle/run/checkpoint-files.ts) in
 * `<runDir>/serve/checkpoints/step-<revision>/`, with the selector state also in the database
 * (table `selector_states`, as the run loop keeps it). The `step` of a serve checkpoint is its
 * revision, so every mutating request gets its own folder and `latest.json` only ever moves
 * forward (a crash mid-checkpoint leaves the previous one in force).
 */
export class ServeCheckpoints {
  readonly store: CheckpointStore;
  private readonly o: {
    runId: string;
    configHash: string;
    seed: number;
    selectorName: string;
    selectorStates: SelectorStateStore;
  };

  constructor(o: {
    runDir: string;
    runId: string;
    configHash: string;
    seed: number;
    selectorName: string;
    selectorStates: SelectorStateStore;
  }) {
    this.o = o;
    this.store = new CheckpointStore(join(o.runDir, 'serve'));
  }

  async save(
    counters: ServeCounters,
    selector: Selector,
    buffer: RunBuffer,
    requests: RequestLog,
  ): Promise<string> {
    const selectorState = selector.state();
    const { revision, leases, latestModelVersion, ...rest } = counters;
    const state: CheckpointState = {
      step: revision,
      trainSteps: leases,
      explorerVersion: latestModelVersion,
      configHash: this.o.configHash,
      seed: this.o.seed,
      selector: selectorState as unknown as JsonValue,
      sampler: buffer.samplerState(),
      history: [],
      counters: { ...rest },
      createdAt: Date.now(),
    };
    await this.o.selectorStates.put({
      runId: this.o.runId,
      step: revision,
      selector: this.o.selectorName,
      state: JSON.stringify(selectorState),
      createdAt: state.createdAt,
    });
    const dir = await this.store.save(state, async (d) => requests.writeTo(d));
    if (revision % PRUNE_EVERY === 0) await this.prune(revision);
    return dir;
  }

  /** The latest checkpoint loaded into `selector`, `buffer` and `requests`; its counters, or null when there is none. */
  async restore(selector: Selector, buffer: RunBuffer, requests: RequestLog): Promise<ServeCounters | null> {
    const latest = this.store.latest();
    if (!latest) return null;
    requests.load(RequestLog.readFrom(latest.dir));
    const s = latest.state;
    const stored = await this.o.selectorStates.get(this.o.runId, s.step);
    selector.load((stored ? JSON.parse(stored.state) : s.selector) as SelectorState);
    if (s.sampler !== undefined) buffer.loadSamplerState(s.sampler);
    const c = s.counters;
    const num = (k: keyof ServeCounters) => (typeof c[k] === 'number' ? c[k] : 0);
    return {
      ...emptyCounters(),
      selectSteps: num('selectSteps'),
      feedbackSteps: num('feedbackSteps'),
      acknowledgedThrough: num('acknowledgedThrough'),
      received: num('received'),
      kept: num('kept'),
      dropped: num('dropped'),
      sampled: num('sampled'),
      skippedStale: num('skippedStale'),
      revision: s.step,
      leases: s.trainSteps,
      latestModelVersion: s.explorerVersion,
    };
  }

  /** Selector states of older revisions are dead weight: one row per request would grow the table without end. */
  private async prune(revision: number): Promise<void> {
    const table = this.o.selectorStates.table;
    await table.delete(`run_id = ${sqlString(this.o.runId)} AND step <= ${revision - KEEP_SELECTOR_STATES}`);
  }
}
