import type { Experience } from '../../src/core/experience.ts';
import type { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import type { TinyPolicy } from '../../src/tiny/policy.ts';
import type { PolicyGradientTrainer } from '../../src/tiny/policy-gradient-trainer.ts';
import type { TrainMetrics } from '../../src/trainer/trainer.ts';

/**
 * One step of a minimal GRPO loop (the test's and scripts/rl-smoke.ts's): pick tasks with the
 * seeded Rng, sample a group per task in one batch, reward = exact match, advantage =
 * (r − mean)/(std + 1e-6) within the group, drop groups whose rewards are all equal, train once.
 */
export interface GrpoStepOptions {
  policy: TinyPolicy;
  trainer: PolicyGradientTrainer;
  train: readonly Task[];
  rng: Rng;
  tasksPerStep: number;
  group: number;
  temperature?: number;
  /** Keep groups whose rewards are all equal (advantage 0): they then only feed KL/entropy terms. */
  keepEqualGroups?: boolean;
}

export interface GrpoStepResult {
  rewardMean: number;
  groups: number;
  keptGroups: number;
  metrics: TrainMetrics;
  genMs: number;
  trainMs: number;
}

export async function grpoStep(o: GrpoStepOptions): Promise<GrpoStepResult> {
  const picks = o.rng.sampleDistinct(o.train.length, o.tasksPerStep).map((i) => o.train[i]!);
  const t0 = performance.now();
  const gens = await o.policy.generateBatch(
    picks.map((t) => ({
      prompt: t.prompt!,
      n: o.group,
      temperature: o.temperature ?? 1,
      seed: o.rng.nextUint32(),
    })),
  );
  const t1 = performance.now();
  const batch: Experience[] = [];
  let rewardSum = 0;
  let keptGroups = 0;
  gens.forEach((group, gi) => {
    const task = picks[gi]!;
    const rewards: number[] = group.map((g) => (g.text === task.answer ? 1 : 0));
    rewardSum += rewards.reduce((a, b) => a + b, 0);
    const mean = rewards.reduce((a, b) => a + b, 0) / rewards.length;
    const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / rewards.length);
    if (std === 0 && !o.keepEqualGroups) return;
    keptGroups++;
    group.forEach((g, j) => {
      batch.push({
        id: `${task.id}-${j}`,
        taskId: task.id,
        taskset: task.taskset,
        groupId: `${gi}`,
        runIndex: j,
        stepIndex: 0,
        modelVersion: o.trainer.version,
        exploreStep: 0,
        prompt: task.prompt!,
        response: g.text,
        tokens: [...g.promptTokens, ...g.tokens],
        logprobs: g.logprobs,
        actionMask: [],
        promptLength: g.promptTokens.length,
        reward: rewards[j]!,
        advantage: (rewards[j]! - mean) / (std + 1e-6),
        truncated: g.finishReason === 'length',
        info: {},
        useCount: 0,
        priority: 0,
        createdAt: 0,
        expert: false,
      });
    });
  });
  const metrics = batch.length > 0 ? await o.trainer.step(batch) : {};
  const t2 = performance.now();
  return {
    rewardMean: rewardSum / (picks.length * o.group),
    groups: picks.length,
    keptGroups,
    metrics,
    genMs: t1 - t0,
    trainMs: t2 - t1,
  };
}
