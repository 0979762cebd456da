// Moved down to src/models/openai so task operators can share the transport; re-exported here.
export * from '../../models/openai/rollout-error.ts';
