import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { formatPath, parseConfig } from '../core/config.ts';
import { ConfigError } from '../core/errors.ts';
import type { Registry } from '../core/registry.ts';
import type { GraphNode } from './graph.ts';
import type { OperatorDefinition } from './operator.ts';
import { compilePredicate, type Predicate, PredicateSchema } from './predicate.ts';

/**
 * The YAML/JSON shape of an operator graph:
 *   - op: length_filter          # a registered operator
 *     params: { min_words: 5 }
 *   - module: ./my-op.ts         # a user operator (an OperatorDefinition export)
 *     export: myOp
 *   - branch:                    # route rows by predicate, run each route, union the results
 *       routes:
 *         - name: hard
 *           when: { field: features.difficulty, gte: 0.5 }
 *           operators: [...]
 *       otherwise: [...]
 */
export type StepSpec =
  | { op: string; name?: string; params?: Record<string, unknown> }
  | { module: string; export?: string; name?: string; params?: Record<string, unknown> }
  | {
      branch: {
        name?: string;
        routes: Array<{ name: string; when: Predicate; operators: StepSpec[] }>;
        otherwise?: StepSpec[];
      };
    };

const ParamsSchema = z.record(z.string(), z.unknown());

/** A branch step over `step`, the schema of one step (built-in names, user modules, branches). */
function branchStepSchema(step: z.ZodType<StepSpec>) {
  return z
    .strictObject({
      branch: z.strictObject({
        name: z.string().min(1).optional(),
        routes: z
          .array(z.strictObject({ name: z.string().min(1), when: PredicateSchema, operators: z.array(step) }))
          .min(1),
        otherwise: z.array(step).optional(),
      }),
    })
    .describe('Route rows by predicate, run each route, union the results.');
}

/** Any step list, with operator names unchecked (they are looked up when the graph is built). */
export const StepSpecSchema: z.ZodType<StepSpec> = z.lazy(
  () =>
    z.union([
      OpStepSchema,
      ModuleStepSchema,
      branchStepSchema(StepSpecSchema),
    ]) as unknown as z.ZodType<StepSpec>,
);

/**
 * `op` steps whose params an operator-list schema parsed (the door): `buildGraph` builds them as
 * they are, so each operator's params are parsed once per run. A step made by hand is not here and
 * is parsed where it is built; a worker's copies are marked again on arrival (`markReceivedParsed`).
 */
const parsedSteps = new WeakSet<object>();
function markParsed<S extends object>(step: S): S {
  parsedSteps.add(step);
  return step;
}

/** An `op` step as the door gives it: its params parsed with its operator's schema. */
export type ParsedOpStep = { op: string; name?: string; params: Record<string, unknown> };

/**
 * `spec` as the door would give it: itself when the door parsed it, else (a step made by hand) a
 * copy with its params parsed by `def` once, here. What leaves the main thread for a worker is this.
 */
export function parsedOpStep(
  spec: { op: string; name?: string; params?: Record<string, unknown> },
  def: { params: z.ZodType },
  path: string,
): ParsedOpStep {
  if (parsedSteps.has(spec)) return spec as ParsedOpStep;
  const params = parseConfig(def.params, spec.params ?? {}, { path: `${path}.params` }) as Record<
    string,
    unknown
  >;
  return markParsed({ op: spec.op, ...(spec.name !== undefined ? { name: spec.name } : {}), params });
}

/**
 * Steps a worker thread received from the main thread, which sends only parsed steps
 * (`parsedOpStep`): a structured clone keeps the parsed params but not the mark, so the worker
 * marks them again and `buildGraph` builds them as they are, with no second parse.
 */
export function markReceivedParsed(steps: readonly ParsedOpStep[]): StepSpec[] {
  return steps.map((s) => markParsed(s));
}

/**
 * The zod schema of an operator list, typed per registered operator (`op` picks the entry and its
 * params schema): used by the run-config schemas, so `winnow schema` and parse errors know every
 * operator's params. Branches nest lists under `operators`.
 */
export function operatorListSchema<T>(
  registry: Registry<OperatorDefinition<T, unknown>>,
): z.ZodType<StepSpec[]> {
  const ops = registry.all().map((d) =>
    z
      .strictObject({
        op: z.literal(d.name),
        name: z.string().min(1).optional(),
        params: (d.params as z.ZodType).prefault({}),
      })
      .transform(markParsed)
      .describe(d.description),
  );
  const step: z.ZodType<StepSpec> = z.lazy(
    () =>
      z.union([
        ops.length === 1
          ? ops[0]!
          : z.discriminatedUnion('op', ops as unknown as Parameters<typeof z.discriminatedUnion>[1]),
        ModuleStepSchema.describe('A user operator loaded from a module path (relative to the config file).'),
        branchStepSchema(step),
      ]) as unknown as z.ZodType<StepSpec>,
  );
  return z.array(step);
}

const OpStepSchema = z.strictObject({
  op: z.string().min(1),
  name: z.string().min(1).optional(),
  params: ParamsSchema.optional(),
});
const ModuleStepSchema = z.strictObject({
  module: z.string().min(1),
  export: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  params: ParamsSchema.optional(),
});

/**
 * Validate a steps list item by item, dispatching on the key that says what a step is, so errors
 * name the exact path (a plain union would only say "invalid input").
 */
function parseSteps(value: unknown, path: string, file: string | undefined): StepSpec[] {
  const where = file ? { file } : {};
  if (!Array.isArray(value))
    throw new ConfigError({
      path,
      ...where,
      message: `expected a list of steps, got ${value === null ? 'null' : typeof value}`,
    });
  return value.map((item, i): StepSpec => {
    const here = formatPath([i], path);
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new ConfigError({
        path: here,
        ...where,
        message: 'expected a step object with one of the keys op, module or branch',
      });
    }
    const keys = Object.keys(item);
    if ('op' in item)
      return parsedSteps.has(item)
        ? (item as StepSpec)
        : parseConfig(OpStepSchema, item, { path: here, ...where });
    if ('module' in item) return parseConfig(ModuleStepSchema, item, { path: here, ...where });
    if ('branch' in item) {
      const b = (item as { branch: unknown }).branch;
      const bp = `${here}.branch`;
      const shape = parseConfig(
        z.strictObject({
          name: z.string().min(1).optional(),
          routes: z
            .array(z.strictObject({ name: z.string().min(1), when: PredicateSchema, operators: z.unknown() }))
            .min(1),
          otherwise: z.unknown().optional(),
        }),
        b,
        { path: bp, ...where },
      );
      return {
        branch: {
          ...(shape.name ? { name: shape.name } : {}),
          routes: shape.routes.map((r, k) => ({
            name: r.name,
            when: r.when,
            operators: parseSteps(r.operators, `${bp}.routes[${k}].operators`, file),
          })),
          ...(shape.otherwise !== undefined
            ? { otherwise: parseSteps(shape.otherwise, `${bp}.otherwise`, file) }
            : {}),
        },
      };
    }
    throw new ConfigError({
      path: here,
      ...where,
      message: `a step needs one of the keys op, module or branch; found ${keys.length ? keys.join(', ') : 'no keys'}`,
    });
  });
}

export interface BuildGraphOptions<T> {
  registry: Registry<OperatorDefinition<T, unknown>>;
  /** Folder that user module paths are relative to (the config file's folder). */
  baseDir: string;
  /** Config path of the operator list, for error messages (e.g. `operators`). */
  path?: string;
  file?: string;
}

function isDefinition(v: unknown): v is OperatorDefinition<unknown, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const d = v as Record<string, unknown>;
  return (
    typeof d.name === 'string' &&
    typeof d.create === 'function' &&
    typeof d.kind === 'string' &&
    d.params !== undefined
  );
}

/** Load a user operator. Only a module path the user wrote in the config is ever imported. */
async function loadModuleOperator<T>(
  spec: { module: string; export?: string },
  opts: BuildGraphOptions<T>,
  path: string,
): Promise<OperatorDefinition<T, unknown>> {
  const file = resolve(opts.baseDir, spec.module);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError({
      path: `${path}.module`,
      file: opts.file,
      message: `cannot load operator module ${file}: ${(err as Error).message}`,
    });
  }
  const name = spec.export ?? 'default';
  const def = mod[name];
  if (!isDefinition(def)) {
    const exported = Object.keys(mod).join(', ') || 'nothing';
    throw new ConfigError({
      path: `${path}.export`,
      file: opts.file,
      message: `export '${name}' of ${file} is not an operator definition ({ name, kind, params, create }); the module exports: ${exported}`,
    });
  }
  return def as OperatorDefinition<T, unknown>;
}

/** Turn validated step specs into graph nodes, validating each operator's params with its own schema. */
export async function buildGraph<T>(specs: unknown, opts: BuildGraphOptions<T>): Promise<GraphNode<T>[]> {
  const base = opts.path ?? 'operators';
  const steps = parseSteps(specs, base, opts.file);
  const used = new Set<string>();
  const uniqueName = (wanted: string, prefix: string): string => {
    const full = prefix ? `${prefix}/${wanted}` : wanted;
    let name = full;
    for (let k = 2; used.has(name); k++) name = `${full}#${k}`;
    used.add(name);
    return name;
  };

  const build = async (list: StepSpec[], path: string, prefix: string): Promise<GraphNode<T>[]> => {
    const nodes: GraphNode<T>[] = [];
    for (let i = 0; i < list.length; i++) {
      const spec = list[i]!;
      const here = formatPath([i], path);
      if ('branch' in spec) {
        const bname = uniqueName(spec.branch.name ?? 'branch', prefix);
        const routes = [];
        for (let r = 0; r < spec.branch.routes.length; r++) {
          const route = spec.branch.routes[r]!;
          routes.push({
            name: route.name,
            when: compilePredicate(route.when),
            nodes: await build(
              route.operators,
              `${here}.branch.routes[${r}].operators`,
              `${bname}/${route.name}`,
            ),
          });
        }
        routes.push({
          name: 'otherwise',
          when: null,
          nodes: await build(spec.branch.otherwise ?? [], `${here}.branch.otherwise`, `${bname}/otherwise`),
        });
        nodes.push({ type: 'branch', step: bname, routes });
        continue;
      }
      const def =
        'op' in spec
          ? opts.registry.get(spec.op, `${here}.op`, opts.file)
          : await loadModuleOperator(spec, opts, here);
      const params =
        'op' in spec && parsedSteps.has(spec)
          ? spec.params
          : parseConfig(def.params, spec.params ?? {}, {
              path: `${here}.params`,
              ...(opts.file ? { file: opts.file } : {}),
            });
      nodes.push({
        type: 'op',
        step: uniqueName(spec.name ?? def.name, prefix),
        operator: def.create(params),
      });
    }
    return nodes;
  };
  return build(steps, base, '');
}
