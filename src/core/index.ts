export * from './errors.ts';
export * from './experience.ts';
export * from './ids.ts';
export * from './registry.ts';
export * from './rejected.ts';
export * from './rng.ts';
export * from './suggest.ts';
export * from './task.ts';
