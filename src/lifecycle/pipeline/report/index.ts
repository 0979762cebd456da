export * from './collector.ts';
export * from './histogram.ts';
export * from './render.ts';
export * from './write.ts';
