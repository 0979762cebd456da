import type { Experience } from '../../core/experience.ts';
import { slotFlags } from '../index/experience-slots.ts';
import { actionLogprobs, sequenceEntropy } from '../index/sequence-stats.ts';
import type { RowFacts } from '../samplers/sampler.ts';

/**
 * What the index (ExperienceSlots) and the sampler keep of a write call's rows, taken column by
 * column when the call is made. The call then holds these arrays and its encoded batch, not its
 * checked row objects: a write-behind queue of 30k rows kept that many objects alive until their
 * commit, and every young-generation GC copied them (10–25 ms pauses, measured) and promoted them.
 * Strings are the rows' own (no copy).
 */
export interface WriteFacts {
  ids: string[];
  taskIds: string[];
  tasksets: string[];
  groupIds: string[];
  modelVersion: Int32Array;
  runIndex: Int32Array;
  stepIndex: Int32Array;
  exploreStep: Int32Array;
  promptLength: Int32Array;
  reward: Float64Array;
  advantage: Float64Array;
  createdAt: Float64Array;
  /** Sequence entropy estimate (sequence-stats.ts; NaN without log-probs). */
  entropy: Float64Array;
  /** As ExperienceSlots.flags (slotFlags). */
  flags: Uint8Array;
}

/** The facts of checked rows, in order. */
export function writeFacts(rows: readonly Experience[]): WriteFacts {
  const n = rows.length;
  const f: WriteFacts = {
    ids: new Array<string>(n),
    taskIds: new Array<string>(n),
    tasksets: new Array<string>(n),
    groupIds: new Array<string>(n),
    modelVersion: new Int32Array(n),
    runIndex: new Int32Array(n),
    stepIndex: new Int32Array(n),
    exploreStep: new Int32Array(n),
    promptLength: new Int32Array(n),
    reward: new Float64Array(n),
    advantage: new Float64Array(n),
    createdAt: new Float64Array(n),
    entropy: new Float64Array(n),
    flags: new Uint8Array(n),
  };
  for (let k = 0; k < n; k++) {
    const e = rows[k]!;
    f.ids[k] = e.id;
    f.taskIds[k] = e.taskId;
    f.tasksets[k] = e.taskset;
    f.groupIds[k] = e.groupId;
    f.modelVersion[k] = e.modelVersion;
    f.runIndex[k] = e.runIndex;
    f.stepIndex[k] = e.stepIndex;
    f.exploreStep[k] = e.exploreStep;
    f.promptLength[k] = e.promptLength;
    f.reward[k] = e.reward;
    f.advantage[k] = e.advantage;
    f.createdAt[k] = e.createdAt;
    // From the log-probs as the table stores them (float32), as a reopened buffer rebuilds it: else
    // two rollouts could compare differently before and after a restart (a resumed run replayed others).
    const action = actionLogprobs(e.logprobs, e.actionMask, e.tokens.length, e.promptLength);
    for (let t = 0; t < action.length; t++) action[t] = Math.fround(action[t]!);
    f.entropy[k] = sequenceEntropy(action);
    f.flags[k] = slotFlags(e.truncated, e.expert);
  }
  return f;
}

/** What a sampler reads about row `k` of a call, numbered `seq` (as ExperienceSlots.facts gives it later). */
export function rowFactsAt(f: WriteFacts, k: number, seq: number): RowFacts {
  return {
    id: f.ids[k]!,
    seq,
    modelVersion: f.modelVersion[k]!,
    advantage: f.advantage[k]!,
    reward: f.reward[k]!,
    taskId: f.taskIds[k]!,
    taskset: f.tasksets[k]!,
    groupId: f.groupIds[k]!,
    exploreStep: f.exploreStep[k]!,
    entropy: f.entropy[k]!,
  };
}
