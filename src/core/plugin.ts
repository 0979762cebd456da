import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { parseConfig } from './config.ts';
import { ConfigError, errorMessage } from './errors.ts';
import type { Registry } from './registry.ts';

/**
 * The one shape every pluggable stage shares (selectors, samplers, sample strategies, models,
 * trainers, workflows, rewards, monitors): a name, a params schema with defaults, and a factory.
 * `C` is what the stage's builder hands the factory; `T` what it returns.
 */
export interface PluginDefinition<P = unknown, C = unknown, T = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType<P>;
  create(params: P, ctx: C): T | Promise<T>;
}

/** Keeps a definition's params type flowing into `create` without annotations. */
export function definePlugin<S extends z.ZodType, C, T>(def: {
  name: string;
  description: string;
  params: S;
  create(params: z.output<S>, ctx: C): T | Promise<T>;
}): PluginDefinition<z.output<S>, C, T> {
  return def as PluginDefinition<z.output<S>, C, T>;
}

/** A plug-in slot in a config, after parsing: a registered name or a user module, with raw params. */
export type PluginConfig =
  | { type: string; params: Record<string, unknown> }
  | { module: string; export: string; params: Record<string, unknown> };

/** The user-module form of a slot: `{ module: ./file.ts, export: Name, params: {…} }`. */
export const ModulePluginSchema = z.strictObject({
  module: z
    .string()
    .min(1)
    .describe('A file path (./ or ../, relative to the config file, or absolute) to a module.'),
  export: z.string().min(1).default('default').describe('The exported definition to use.'),
  params: z.record(z.string(), z.unknown()).default({}).describe("Checked by the definition's own schema."),
});

/** Any definition with a params schema: what a slot schema needs from a registry entry. */
interface Describable {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType;
  /**
   * For a definition whose params hold slots of its own registry (a selector that mixes others):
   * its params schema with `slot` at each nested place, so nested names and params are checked in
   * the same parse, against the same registry. Nested slots name registered definitions only.
   */
  readonly paramsWith?: (slot: z.ZodType) => z.ZodType;
}

/**
 * The zod schema of one plug-in slot: a bare name (`reward: math`), `{ type, params }` discriminated
 * over every registered definition (so params are checked, with defaults, at parse time), or a user
 * module. Built from the registry when the config is parsed, so registered plug-ins are part of it,
 * at any depth (see `paramsWith`).
 */
export function pluginSlotSchema<D extends Describable>(
  registry: Registry<D>,
  opts: { modules?: boolean } = {},
) {
  const defs = registry.all();
  // Nested slots are the registry's names only (a user module is imported at the top slot).
  let nested: z.ZodType | undefined;
  const nestedSlot: z.ZodType = z.lazy((): z.ZodType => {
    nested ??= slotUnion(registry, defs, nestedSlot, { modules: false, nested: true });
    return nested;
  });
  return slotUnion(registry, defs, nestedSlot, { modules: opts.modules !== false, nested: false });
}

/**
 * Slots whose params this parse checked (a `{ type, params }` value, or a nested bare name): what
 * `resolvePlugin` then takes as they are. A top-level bare name keeps `params: {}` unchecked, so
 * a name whose params are required (`model: tiny`) is reported where the part is built.
 */
const parsedSlots = new WeakSet<object>();

function slotUnion<D extends Describable>(
  registry: Registry<D>,
  defs: readonly D[],
  nestedSlot: z.ZodType,
  opts: { modules: boolean; nested: boolean },
) {
  const typed = defs.map((d) =>
    z
      .strictObject({
        type: z.literal(d.name),
        params: ((d.paramsWith ? d.paramsWith(nestedSlot) : d.params) as z.ZodType).prefault({}),
      })
      .describe(d.description),
  );
  const names = z.enum(defs.map((d) => d.name) as [string, ...string[]]);
  const byType: z.ZodType =
    typed.length === 1
      ? typed[0]!
      : z.discriminatedUnion('type', typed as unknown as Parameters<typeof z.discriminatedUnion>[1]);
  const options: z.ZodType[] = [
    // Nested, a bare name is `{ type: name }` with its params' defaults (nothing parses them later).
    (opts.nested
      ? names.transform((type) => ({ type })).pipe(byType as z.ZodType<unknown, { type: string }>)
      : names
    ).describe(`A ${registry.what} by name, with default params.`),
    byType,
  ];
  if (opts.modules) options.push(ModulePluginSchema);
  return z.union(options as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]).transform((value) => {
    const slot = normalizePlugin(value);
    if (typeof value === 'object' && value !== null && 'type' in value) parsedSlots.add(slot);
    return slot;
  });
}

/** Whether `slot` came out of a slot schema with its params checked (see `parsedSlots`). */
export function isParsedSlot(slot: unknown): boolean {
  return typeof slot === 'object' && slot !== null && parsedSlots.has(slot);
}

/** A slot value after parsing, in its one normal form. */
export function normalizePlugin(value: unknown): PluginConfig {
  if (typeof value === 'string') return { type: value, params: {} };
  const v = value as Record<string, unknown>;
  if (typeof v.module === 'string')
    return {
      module: v.module,
      export: typeof v.export === 'string' ? v.export : 'default',
      params: (v.params as Record<string, unknown>) ?? {},
    };
  return { type: String(v.type), params: (v.params as Record<string, unknown>) ?? {} };
}

export interface ResolveContext {
  /** Folder module paths are relative to (the config file's folder). */
  baseDir: string;
  /** Config path of the slot, for errors (e.g. `explorer.workflow`). */
  path: string;
  file?: string | undefined;
}

export interface ResolvedPlugin<D> {
  def: D;
  /** Params parsed by the definition's own schema (defaults filled). */
  params: unknown;
  /** `type` for registered definitions, `module:<file>#<export>` for user modules. */
  label: string;
}

/** Only file paths are imported, never package names or URLs: a config cannot pull code from elsewhere. */
export function isModuleFilePath(p: string): boolean {
  return p.startsWith('./') || p.startsWith('../') || isAbsolute(p);
}

/** Import a user module a config names; errors name the config key. Nothing else is ever imported. */
export async function importUserModule(
  spec: string,
  ctx: ResolveContext,
): Promise<{ file: string; mod: Record<string, unknown> }> {
  const where = ctx.file ? { file: ctx.file } : {};
  if (!isModuleFilePath(spec))
    throw new ConfigError({
      path: `${ctx.path}.module`,
      ...where,
      message: `'${spec}' is not a file path`,
      hint: 'write a path starting with ./ or ../ (relative to the config file) or an absolute path',
    });
  const file = resolve(ctx.baseDir, spec);
  if (!existsSync(file))
    throw new ConfigError({
      path: `${ctx.path}.module`,
      ...where,
      message: `module file ${file} does not exist`,
      hint: 'module paths are relative to the config file',
    });
  try {
    return { file, mod: (await import(pathToFileURL(file).href)) as Record<string, unknown> };
  } catch (err) {
    throw new ConfigError({
      path: `${ctx.path}.module`,
      ...where,
      message: `cannot load module ${file}: ${errorMessage(err).split('\n')[0]}`,
    });
  }
}

function isDefinitionLike(v: unknown): v is Describable & { create: unknown } {
  if (v === null || typeof v !== 'object') return false;
  const d = v as Record<string, unknown>;
  return typeof d.name === 'string' && typeof d.create === 'function' && d.params instanceof z.ZodType;
}

/**
 * Turn a parsed slot into its definition and checked params: a registered name from `registry`,
 * or a user module's export — a definition `{ name, description, params, create }` (made with the
 * stage's `define…` helper), or, where `adapt` is given, a bare implementation it wraps.
 */
export async function resolvePlugin<D extends Describable>(
  value: unknown,
  registry: Registry<D>,
  ctx: ResolveContext & { adapt?: (exported: unknown) => D | null },
): Promise<ResolvedPlugin<D>> {
  const where = ctx.file ? { file: ctx.file } : {};
  const slot = normalizePlugin(value);
  let def: D;
  let label: string;
  if ('type' in slot) {
    def = registry.get(slot.type, `${ctx.path}.type`, ctx.file);
    label = slot.type;
  } else {
    const { file, mod } = await importUserModule(slot.module, ctx);
    const exported = mod[slot.export];
    const adapted = isDefinitionLike(exported) ? (exported as unknown as D) : (ctx.adapt?.(exported) ?? null);
    if (!adapted) {
      throw new ConfigError({
        path: `${ctx.path}.export`,
        ...where,
        message: `export '${slot.export}' of ${file} is not a ${registry.what} definition ({ name, description, params, create })`,
        hint: `the module exports: ${Object.keys(mod).join(', ') || 'nothing'}`,
      });
    }
    def = adapted;
    label = `module:${slot.module}#${slot.export}`;
  }
  // A slot the door's schema parsed keeps its params: each schema parses a value once per run.
  // A definition with nested slots is parsed as a whole slot, so its children are checked too.
  const params =
    'type' in slot && isParsedSlot(value)
      ? slot.params
      : 'type' in slot && def.paramsWith
        ? (
            parseConfig(pluginSlotSchema(registry, { modules: false }), slot, {
              path: ctx.path,
              ...where,
            }) as PluginConfig
          ).params
        : parseConfig(def.params, slot.params, { path: `${ctx.path}.params`, ...where });
  return { def, params, label };
}
