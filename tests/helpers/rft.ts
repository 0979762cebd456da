import { RftConfigSchema } from '../../src/lifecycle/run/rft-config.ts';

const mapping = {
  taskset: 'arithmetic',
  id: 'id',
  prompt: 'prompt',
  answer: 'answer',
  features: { difficulty: 'features.difficulty' },
  meta: { domain: 'meta.domain' },
};

/** A small, fast RFT config on the shipped arithmetic tasks and warm start (paths relative to the repo root). */
export function smallRftConfig(name: string, extra: Record<string, unknown> = {}) {
  return RftConfigSchema.parse(smallRftRaw(name, extra));
}

/** The same config as written in YAML, before parsing (so tests can write invalid variants). */
export function smallRftRaw(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    kind: 'rft',
    seed: 3,
    tasks: { path: 'datasets/arithmetic/train.jsonl', mapping, limit: 200 },
    heldout: { source: { path: 'datasets/arithmetic/heldout.jsonl', mapping }, every: 2, size: 20 },
    selector: { type: 'random' },
    explorer: {
      model: { type: 'tiny', params: { path: 'datasets/arithmetic/warm-start' } },
      reward: 'exact_match',
      repeat: 4,
      batchTasks: 4,
    },
    experienceOps: [{ op: 'invalid_reward' }, { op: 'grpo' }],
    trainer: { type: 'policy_gradient', params: { lr: 0.001 } },
    lifecycle: { mode: 'sync', steps: 2, checkpointEvery: 1 },
    monitors: [],
    ...extra,
  };
}
