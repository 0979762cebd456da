// Agents: environments, typed tools, episodes and trajectories (docs/agents.md). Re-exports only.
export * from './builtin-tools.ts';
export * from './calculator-choice-environment.ts';
export * from './environment.ts';
export * from './environment-registry.ts';
export * from './episode.ts';
export * from './guess-number-environment.ts';
export * from './text-tool-calls.ts';
export * from './tool.ts';
export * from './tool-call-runner.ts';
export * from './tool-environment.ts';
export * from './trajectory.ts';
