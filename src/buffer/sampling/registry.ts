import { Registry } from '../../core/registry.ts';
import { defaultStrategy } from './default.ts';
import { mixStrategy } from './mix.ts';
import { stalenessStrategy } from './staleness.ts';
import type { StrategyDefinition } from './strategy.ts';

/** Sample strategies by config name (`sampling: { type: staleness, params: {…} }`). */
export const sampleStrategies = new Registry<StrategyDefinition>('sample strategy');
for (const def of [defaultStrategy, stalenessStrategy, mixStrategy])
  sampleStrategies.register(def as StrategyDefinition);
