import type { z } from 'zod';
import type { Experience } from '../../core/experience.ts';
import { defineOperator, type Operator, type OperatorDefinition, type OperatorKind } from '../operator.ts';

/** `defineOperator` fixed to experiences, so each definition's params type is inferred from its schema. */
export function defineExperienceOperator<S extends z.ZodType>(def: {
  name: string;
  kind: OperatorKind;
  description: string;
  params: S;
  create(params: z.output<S>): Operator<Experience>;
}): OperatorDefinition<Experience, z.output<S>> {
  return defineOperator<Experience, S>(def);
}
