export * from './discipline.ts';
export * from './fifo.ts';
export * from './lifo.ts';
export * from './prioritized.ts';
export * from './priority.ts';
export * from './registry.ts';
export * from './select.ts';
export * from './uniform.ts';
