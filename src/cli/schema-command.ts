import { z } from 'zod';
import { TaskPipelineConfigSchema } from '../lifecycle/task-pipeline-config.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';
import { parseCommandArgs } from './args.ts';

/**
 * JSON Schema of the task pipeline config, for editors (YAML language servers read it).
 * The `steps` list is typed per registered operator: `op` names it and `params` follows its own schema.
 */
export function taskPipelineJsonSchema(): Record<string, unknown> {
  const base = z.toJSONSchema(TaskPipelineConfigSchema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  const opSteps = taskOperatorRegistry()
    .all()
    .map((def) => ({
      type: 'object',
      description: def.description,
      properties: {
        op: { const: def.name },
        name: { type: 'string' },
        params: z.toJSONSchema(def.params, { io: 'input', unrepresentable: 'any' }),
      },
      required: ['op'],
      additionalProperties: false,
    }));
  const moduleStep = {
    type: 'object',
    description: 'A user operator loaded from a module path (relative to the config file).',
    properties: {
      module: { type: 'string' },
      export: { type: 'string' },
      name: { type: 'string' },
      params: { type: 'object' },
    },
    required: ['module'],
    additionalProperties: false,
  };
  const branchStep = {
    type: 'object',
    description: 'Route rows by predicate, run each route, union the results.',
    properties: { branch: { type: 'object' } },
    required: ['branch'],
  };
  const props = base.properties as Record<string, unknown>;
  props.steps = { type: 'array', items: { anyOf: [...opSteps, moduleStep, branchStep] } };
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Winnow task pipeline', ...base };
}

export async function schemaCommand(argv: string[]): Promise<number> {
  parseCommandArgs(argv, {}, 'winnow schema [tasks]');
  process.stdout.write(`${JSON.stringify(taskPipelineJsonSchema(), null, 2)}\n`);
  return 0;
}
