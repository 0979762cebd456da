import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { closestNames } from '../core/suggest.ts';
import { UsageError } from '../core/usage-error.ts';
import { taskPipelineConfigSchema } from '../lifecycle/pipeline/task-pipeline-config.ts';
import { rftConfigSchema } from '../lifecycle/run/rft-config.ts';
import { parseCommand } from './command-spec.ts';
import { SCHEMA_SPEC } from './specs/schema.ts';

type JsonSchema = Record<string, unknown>;

const toJson = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/**
 * The operator list's items, flattened to one `anyOf` of every operator (`op` const, typed params),
 * the module form and the branch form — the shape editors and our tests read.
 */
function flattenOperatorItems(schema: JsonSchema, key: string): void {
  const props = schema.properties as Record<string, JsonSchema>;
  const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
  const list = props[key];
  const ref = (list?.items as JsonSchema | undefined)?.$ref;
  const items =
    typeof ref === 'string' ? defs[ref.replace('#/$defs/', '')] : (list?.items as JsonSchema | undefined);
  if (!list || !items || !Array.isArray(items.anyOf)) return;
  const flat = (items.anyOf as JsonSchema[]).flatMap((o) =>
    Array.isArray(o.oneOf) ? (o.oneOf as JsonSchema[]) : [o],
  );
  list.items = { anyOf: flat };
}

/** JSON Schema of the task pipeline config (`winnow schema task`). */
export function taskPipelineJsonSchema(): JsonSchema {
  const base = toJson(taskPipelineConfigSchema());
  flattenOperatorItems(base, 'operators');
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Winnow task pipeline', ...base };
}

/** JSON Schema of the RFT run config (`winnow schema rft`), built from the default registries. */
export function rftJsonSchema(): JsonSchema {
  const base = toJson(rftConfigSchema());
  flattenOperatorItems(base, 'experienceOps');
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Winnow RFT run', ...base };
}

const KINDS: Record<string, () => JsonSchema> = {
  task: taskPipelineJsonSchema,
  tasks: taskPipelineJsonSchema,
  rft: rftJsonSchema,
};

export async function schemaCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(SCHEMA_SPEC, argv);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 1)
    throw new UsageError(`schema takes one kind (task or rft), got ${positionals.join(' ')}`);
  const kind = positionals[0] ?? 'task';
  const build = KINDS[kind];
  if (!build) {
    const near = closestNames(kind, ['task', 'rft']);
    throw new UsageError(
      `unknown schema kind '${kind}'; ${near.length > 0 ? `did you mean '${near[0]}'?` : 'expected task or rft'}`,
    );
  }
  const text = `${JSON.stringify(build(), null, 2)}\n`;
  if (values.out !== undefined) {
    writeFileSync(resolve(values.out), text);
    process.stderr.write(`wrote ${resolve(values.out)}\n`);
  } else process.stdout.write(text);
  return 0;
}
