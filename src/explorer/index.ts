export * from './explorer.ts';
export * from './faults.ts';
export * from './openai/index.ts';
export * from './rewards/index.ts';
export * from './rollout-model.ts';
export * from './workflow.ts';
export * from './workflows/multi-turn.ts';
export * from './workflows/single-turn.ts';
