import type { Experience } from '../../core/experience.ts';
import type { OperatorDefinition } from '../operator.ts';
import { negativeOnly, positiveOnly } from './advantage-sign-filter.ts';
import { asymre } from './asymre.ts';
import { drGrpo } from './dr-grpo.ts';
import { duplicateResponseFilter } from './duplicate-response-filter.ts';
import { grpo } from './grpo.ts';
import { invalidReward } from './invalid-reward.ts';
import { lengthPenalty } from './length-penalty.ts';
import { maskTruncated } from './mask-truncated.ts';
import { opmd } from './opmd.ts';
import { passRate } from './pass-rate.ts';
import { rec } from './rec.ts';
import { reinforce } from './reinforce.ts';
import { reinforcePp } from './reinforce-pp.ts';
import { reinforcePpSeq } from './reinforce-pp-seq.ts';
import { rewardShaping } from './reward-shaping.ts';
import { rewardStdFilter } from './reward-std-filter.ts';
import { rewardThreshold } from './reward-threshold.ts';
import { rloo } from './rloo.ts';
import { multiStepGrpo, trajectoryAdvantage } from './trajectory-advantage.ts';
import { trajectoryFilter } from './trajectory-filter.ts';

export { ADVANTAGE_FN_INFO_KEY, type AdvantageCompute, applyAdvantages } from './advantage.ts';
export { negativeOnly, positiveOnly } from './advantage-sign-filter.ts';
export { asymre } from './asymre.ts';
export { defineExperienceOperator } from './define.ts';
export { drGrpo } from './dr-grpo.ts';
export { DUPLICATE_OF_INFO_KEY, duplicateGroups } from './duplicate-groups.ts';
export { duplicateResponseFilter } from './duplicate-response-filter.ts';
export { grpo } from './grpo.ts';
export { invalidReward } from './invalid-reward.ts';
export { lengthPenalty } from './length-penalty.ts';
export { maskTruncated } from './mask-truncated.ts';
export { logAvgExp, opmd } from './opmd.ts';
export {
  collectTaskRewards,
  computeTaskPassRates,
  passRate,
  type TaskPassRate,
  type TaskRewards,
} from './pass-rate.ts';
export { rankPenalizedRewards } from './rank-penalty.ts';
export { rec } from './rec.ts';
export { reinforce } from './reinforce.ts';
export { reinforcePp } from './reinforce-pp.ts';
export { reinforcePpSeq } from './reinforce-pp-seq.ts';
export { lookupInfo, rewardShaping } from './reward-shaping.ts';
export { rewardStdFilter, SURPLUS_REASON } from './reward-std-filter.ts';
export { rewardThreshold } from './reward-threshold.ts';
export { rloo } from './rloo.ts';
export { responseTokenCount } from './token-mask.ts';
export { multiStepGrpo, trajectoryAdvantage, turnReturns } from './trajectory-advantage.ts';
export { trajectoryFilter } from './trajectory-filter.ts';

/** Every built-in experience operator, for the operator registry (YAML names are snake_case). */
export const experienceOperators: readonly OperatorDefinition<Experience>[] = [
  grpo,
  drGrpo,
  rloo,
  reinforcePp,
  reinforcePpSeq,
  opmd,
  asymre,
  rec,
  reinforce,
  rewardStdFilter,
  rewardThreshold,
  invalidReward,
  positiveOnly,
  negativeOnly,
  rewardShaping,
  lengthPenalty,
  duplicateResponseFilter,
  passRate,
  maskTruncated,
  trajectoryAdvantage,
  multiStepGrpo,
  trajectoryFilter,
];
