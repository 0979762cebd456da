export * from './checkpoint.ts';
export * from './driver.ts';
export * from './explore-step.ts';
export * from './mode-drivers.ts';
export * from './run-loop.ts';
export * from './run-state.ts';
export * from './train-step.ts';
export * from './types.ts';
