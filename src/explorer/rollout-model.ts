// Moved down to src/models so task operators can call models; re-exported here.
export * from '../models/rollout-model.ts';
