export {
  type ExpressionLimits,
  evaluateExpression,
  numbersProblem,
  type ParsedExpression,
  type Rational,
} from '../../verify/countdown-expression.ts';
export {
  canonicalText,
  cleanAnswer,
  type ExtractedBy,
  extractAnswer,
  extractBoxed,
  judgeMath,
  judgeMathNumbersOnly,
  lastNumber,
  type MathCompareOptions,
  type MathJudgement,
  numbersEqual,
  parseNumber,
  referenceAnswer,
} from '../../verify/math-answer.ts';
export { countdownReward } from './countdown.ts';
export { dapoReward, overlongPenalty } from './dapo.ts';
export { defineReward, type RewardCreateContext, type RewardDefinition } from './definition.ts';
export { exactMatchReward } from './exact-match.ts';
export { formatProblem, formatReward } from './format.ts';
export { mathReward } from './math.ts';
export { adaptRewardExport } from './module-reward.ts';
export { createReward, rewardDefinitions, rewardRegistry } from './registry.ts';
export { checkRewardResult, type RewardContext, type RewardFn, type RewardResult } from './reward-fn.ts';
