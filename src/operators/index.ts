export * from './experience/index.ts';
export * from './graph.ts';
export * from './graph-spec.ts';
export * from './operator.ts';
export * from './predicate.ts';
export * from './registries.ts';
export * from './step-metrics.ts';
export {
  exactDedupOp,
  extractAnswerOp,
  nearDedupOp,
  numericAugmentOp,
  taskOperators,
  verifyAugmentedSolution,
} from './task/index.ts';
