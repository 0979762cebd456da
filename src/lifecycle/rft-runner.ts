/** The RFT run loop; its parts live in ./run/ (run state, explore and train steps, one driver per mode). */
export { runRftLoop } from './run/run-loop.ts';
export type { ExploreNumbers, RftRunOptions, RftRunResult, StepRecord } from './run/types.ts';
