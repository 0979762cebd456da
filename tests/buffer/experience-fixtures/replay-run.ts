/**
 * The run that tests/buffer/replay-kill.test.ts SIGKILLs: every replay method and classic discipline
 * side by side, each with its own on-disk buffer, driven in lockstep by one process
 * (replay-kill-child.ts). What is shared by the child and the test lives here: the samplers under
 * test, the rollouts each step writes, and the shape of the log the child keeps.
 */
import type { ExperienceBufferConfigInput } from '../../../src/buffer/experience-config.ts';
import type { Experience } from '../../../src/core/experience.ts';
import { Rng } from '../../../src/core/rng.ts';
import { exp } from './make.ts';

/** Explorer steps of the run; a checkpoint (then `ack`) every `EVERY` steps. */
export const STEPS = 8;
export const EVERY = 2;
/** Rows trained per step: two fresh groups of 4 plus room for replay. */
export const BATCH = 12;
const GROUPS = 2;
const REPEAT = 4;

/** Every sampler under test: the replay methods (repo over each retrieval strategy) and the classic disciplines. */
export const METHODS: Record<string, ExperienceBufferConfigInput['sampler']> = {
  exgrpo: { type: 'exgrpo' },
  ...Object.fromEntries(
    ['recency', 'reward', 'variance', 'entropy', 'random'].map((strategy) => [
      `repo-${strategy}`,
      { type: 'repo', params: { strategy, offPolicyPerPrompt: 2 } },
    ]),
  ),
  dots_replay: { type: 'dots_replay', params: { window: 24, maxUses: 3 } },
  fifo: { type: 'fifo' },
  lifo: { type: 'lifo' },
  uniform: { type: 'uniform', params: { maxUses: 3 } },
  version_priority: { type: 'version_priority', params: { decay: 0.5, maxUses: 2 } },
  advantage_priority: { type: 'advantage_priority', params: { maxUses: 3 } },
};

/** The replay methods: each trains every fresh rollout exactly once (fresh rows come first and fit the batch). */
export const REPLAY_METHODS = Object.keys(METHODS).filter((m) => /^(exgrpo|repo-|dots_replay)/.test(m));

/**
 * Buffer settings beside the sampler, small so that the run does everything a long one does: it
 * evicts (capacity 40 of the 64 rows written), folds use counts into the table (every 20 waiting)
 * and compacts (every 3 commits).
 */
export const bufferConfig = (method: string) => ({
  sampler: METHODS[method]!,
  capacity: 40,
  foldRows: 20,
  compactEvery: 3,
  retainVersionsSeconds: 0,
  seed: 11,
});

/** Per task, the chance a rollout is correct: every accuracy bucket of ExGRPO occurs. */
const SUCCESS = [0.2, 0.45, 0.55, 0.7, 0.9];

/**
 * The rollouts explorer step `s` writes (the same on every re-run): two groups of 4 on tasks that
 * recur every few steps, seeded rewards, GRPO advantages within each group, and three behaviour
 * log-probs per rollout (so sequence entropies and behaviour log-probs differ from row to row, except
 * for the twins below).
 */
export function stepRollouts(s: number): Experience[] {
  const out: Experience[] = [];
  for (let g = 0; g < GROUPS; g++) {
    const task = (GROUPS * s + g) % SUCCESS.length;
    const rng = new Rng(`rollouts-${s}-${g}`);
    const rewards = Array.from({ length: REPEAT }, (): number => (rng.float() < SUCCESS[task]! ? 1 : 0));
    const mean = rewards.reduce((a, b) => a + b, 0) / REPEAT;
    const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / REPEAT);
    const logprobs = rewards.map(() => [0, 1, 2].map(() => -(0.05 + 1.5 * rng.float())));
    if (rewards[0] === 1 && rewards[1] === 1) {
      // Twins: the task's lowest-entropy correct rollouts, equal once stored as float32 but not as
      // float64 (the explorer's values). A resumed run must order them as the uninterrupted one.
      const low = Math.fround(0.02 + 0.001 * s);
      logprobs[0] = [-low, -low, -low];
      logprobs[1] = logprobs[0].map((x) => x - 1e-12);
    }
    rewards.forEach((reward, k) => {
      out.push(
        exp(`s${s}g${g}k${k}`, {
          taskId: `t${task}`,
          groupId: `s${s}g${g}`,
          runIndex: k,
          modelVersion: s - 1,
          exploreStep: s,
          reward,
          advantage: (reward - mean) / (std + 1e-6),
          logprobs: logprobs[k]!,
        }),
      );
    });
  }
  return out;
}

/** One delivered row as the trainer gets it: id, use count, off-policy flag, behaviour log-prob, advantage, weight. */
export type DeliveredRow = [string, number, number, number | null, number, number];

/** Lines of the child's log (JSON, one per line). */
export type LogLine =
  /** A process started and resumed from checkpoint step `from` (0: none). */
  | { k: 'start'; pid: number; from: number }
  /** Method `m` delivered `rows` at step `s`; `lease` is the lease log line that sample appended (times left out). */
  | { k: 'batch'; pid: number; m: string; s: number; rows: DeliveredRow[]; lease: string }
  /** The checkpoint of step `s` is durable (every method's acks follow). */
  | { k: 'checkpoint'; pid: number; s: number }
  /** The process is about to SIGKILL itself; `landed`: methods whose pending write had resolved. */
  | { k: 'kill'; pid: number; at: string; landed?: string[] }
  /** The run finished: per method, its bookkeeping and its whole lease log (times left out) before close. */
  | { k: 'end'; pid: number; m: string; books: string[]; pending: number; lastAck: number; leases: string[] };

/** A lease log line without its wall-clock `at` fields: `u3\t[[kind, seq, id, step, reason], …]`. */
export function timelessLeaseLine(line: string): string {
  const tab = line.indexOf('\t');
  const entries = JSON.parse(line.slice(tab + 1)) as unknown[][];
  return `${line.slice(0, tab)}\t${JSON.stringify(entries.map((e) => [e[0], e[1], e[2], e[3], e[5]]))}`;
}
