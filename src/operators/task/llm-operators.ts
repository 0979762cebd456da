import type { Task } from '../../core/task.ts';
import type { OperatorDefinition } from '../operator.ts';
import { llmDifficultyOp } from './llm-difficulty.ts';
import { llmJudgeOp } from './llm-judge.ts';
import { llmRewriteOp } from './llm-rewrite.ts';

/**
 * The task operators that call a model server. Registered beside `taskOperators` but kept out of
 * that list, whose every entry must run offline with its defaults (the property tests do so).
 */
export const llmTaskOperators: ReadonlyArray<OperatorDefinition<Task, unknown>> = [
  llmRewriteOp,
  llmJudgeOp,
  llmDifficultyOp,
];
