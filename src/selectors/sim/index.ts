export * from './learner-sim.ts';
