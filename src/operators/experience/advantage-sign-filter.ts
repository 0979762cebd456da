import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import type { Experience } from '../../core/experience.ts';
import { filterRows, type OperatorDefinition } from '../operator.ts';
import { ADVANTAGE_FN_INFO_KEY } from './advantage.ts';
import { defineExperienceOperator } from './define.ts';
import { fmt } from './stats.ts';

/**
 * A batch where every advantage is exactly 0 and no row carries `info.advantage_fn` almost
 * surely never went through an advantage operator (0 is the schema default): filtering it by
 * sign would silently drop everything, so fail loudly instead. Advantages written elsewhere
 * (non-zero, without the marker) are accepted.
 */
function checkAdvantagesComputed(name: string, batch: readonly Experience[]): void {
  if (batch.length === 0) return;
  const marked = batch.some((e) => e.info?.[ADVANTAGE_FN_INFO_KEY] !== undefined);
  const allZero = batch.every((e) => !e.advantage);
  if (!marked && allZero)
    throw new ConfigError({
      path: name,
      message: `every advantage in the batch is 0 and no advantage operator ran before ${name}`,
      hint: 'put grpo, dr_grpo, rloo or reinforce_pp earlier in the experience pipeline',
    });
}

function signFilter(name: 'positive_only' | 'negative_only'): OperatorDefinition<Experience, object> {
  const positive = name === 'positive_only';
  return defineExperienceOperator({
    name,
    kind: 'filter',
    description: positive
      ? 'keep experiences with advantage > 0 (run after an advantage operator)'
      : 'keep experiences with advantage < 0 (run after an advantage operator)',
    params: z.object({}).strict(),
    create: () => ({
      name,
      kind: 'filter',
      process: (batch) => {
        checkAdvantagesComputed(name, batch);
        const res = filterRows(batch, (e) => {
          const a = e.advantage;
          if (positive ? a > 0 : a < 0) return null;
          return `advantage ${fmt(a)} is not ${positive ? '> 0' : '< 0'}`;
        });
        return { ...res, metrics: { kept: res.rows.length, dropped: res.dropped.length } };
      },
    }),
  });
}

export const positiveOnly = signFilter('positive_only');
export const negativeOnly = signFilter('negative_only');
