import { describe, expect, it } from 'vitest';
import { Registry } from '../../../src/core/registry.ts';
import { experienceOperators } from '../../../src/operators/experience/index.ts';

describe('experienceOperators', () => {
  it('lists every built-in once under a snake_case name', () => {
    const names = experienceOperators.map((d) => d.name);
    expect(names).toEqual([
      'grpo',
      'dr_grpo',
      'rloo',
      'reinforce_pp',
      'reinforce_pp_seq',
      'opmd',
      'asymre',
      'rec',
      'reinforce',
      'reward_std_filter',
      'reward_threshold',
      'invalid_reward',
      'positive_only',
      'negative_only',
      'reward_shaping',
      'length_penalty',
      'duplicate_response_filter',
      'pass_rate',
      'mask_truncated',
      'trajectory_advantage',
      'multi_step_grpo',
      'trajectory_filter',
    ]);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9_]*$/);
  });

  it('registers into a Registry and every created operator carries its definition name and kind', () => {
    const reg = new Registry<(typeof experienceOperators)[number]>('experience operator');
    for (const d of experienceOperators) reg.register(d);
    expect(() => reg.get('grop', 'experience_ops[0].name')).toThrow(
      "experience_ops[0].name: unknown experience operator 'grop' (did you mean 'grpo'?)",
    );
    const required: Record<string, unknown> = {
      reward_threshold: { min: 0 },
      reward_shaping: { stat: 'x' },
      length_penalty: { coef: 0.1 },
    };
    for (const d of experienceOperators) {
      const op = d.create(d.params.parse(required[d.name] ?? {}));
      expect(op.name).toBe(d.name);
      expect(op.kind).toBe(d.kind);
      expect(d.description.length).toBeGreaterThan(10);
    }
  });
});
