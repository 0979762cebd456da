export * from './default.ts';
export * from './experience-sampler.ts';
export * from './mix.ts';
export * from './registry.ts';
export * from './staleness.ts';
export * from './strategy.ts';
