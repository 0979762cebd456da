import { Registry } from '../../core/registry.ts';
import { defaultStrategy } from './default.ts';
import { mixStrategy } from './mix.ts';
import { stalenessStrategy } from './staleness.ts';
import type { StrategyDefinition } from './strategy.ts';

/** Sample strategies by config name (`sampling: { type: staleness, params: {…} }`); a fresh registry per call (per run). */
export function strategyRegistry(): Registry<StrategyDefinition> {
  const reg = new Registry<StrategyDefinition>('sample strategy');
  for (const def of [defaultStrategy, stalenessStrategy, mixStrategy])
    reg.register(def as StrategyDefinition);
  return reg;
}
