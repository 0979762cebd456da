export * from './lowest-priority.ts';
export * from './oldest.ts';
export * from './registry.ts';
export * from './remover.ts';
