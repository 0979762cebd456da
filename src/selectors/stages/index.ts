export * from './dapo-ds.ts';
export * from './greso.ts';
export * from './live-rounds.ts';
export * from './registry.ts';
export * from './speed.ts';
export * from './staged-selector.ts';
export * from './staged-step.ts';
export * from './types.ts';
