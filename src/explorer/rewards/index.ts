export { defineReward, type RewardCreateContext, type RewardDefinition } from './definition.ts';
export { exactMatchReward } from './exact-match.ts';
export { mathReward } from './math.ts';
export {
  canonicalText,
  cleanAnswer,
  type ExtractedBy,
  extractAnswer,
  extractBoxed,
  judgeMath,
  lastNumber,
  type MathCompareOptions,
  type MathJudgement,
  numbersEqual,
  parseNumber,
  referenceAnswer,
} from './math-answer.ts';
export { moduleReward } from './module-reward.ts';
export { createReward, type RewardConfig, RewardConfigSchema, rewardDefinitions } from './registry.ts';
export { checkRewardResult, type RewardContext, type RewardFn, type RewardResult } from './reward-fn.ts';
