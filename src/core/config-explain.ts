import type { z } from 'zod';
import { closestNames } from './suggest.ts';

/**
 * Turns zod's issues into one message a user can act on: the config path of the real cause, what
 * was expected, and a hint — the nearest valid key for an unknown key, the nearest registered name
 * for an unknown name, the new spelling for a renamed key.
 */

/** Keys renamed in this release: old spelling → new one (wherever the new key is valid). */
export const RENAMED_KEYS: Readonly<Record<string, string>> = {
  steps: 'operators',
  discipline: 'sampler',
  maxStaleness: 'maxExploreAhead',
  extra_groups: 'extraGroups',
  target_groups: 'targetGroups',
  per_token: 'perToken',
  std_normalize: 'stdNormalize',
  normalize_whitespace: 'normalizeWhitespace',
  case_insensitive: 'caseInsensitive',
  case_sensitive: 'caseSensitive',
  only_correct: 'onlyCorrect',
  correct_threshold: 'correctThreshold',
  on_missing: 'onMissing',
  not_equals: 'notEquals',
  replayRatio: 'rateLimiter',
  runDir: 'runsDir',
  name: 'type',
  report: 'monitors',
};

/** Registry names renamed in this release. */
export const RENAMED_NAMES: Readonly<Record<string, string>> = {
  priority: 'version_priority',
  prioritized: 'advantage_priority',
};

export interface Explained {
  path: PropertyKey[];
  message: string;
  hint?: string;
}

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def | undefined => (s as { _zod?: { def: Def } })?._zod?.def;

/** Strip wrappers (optional, default, lazy, pipe…) down to the schema that holds the shape. */
function unwrap(schema: unknown): unknown {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const d = defOf(s);
    if (!d) return s;
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(d.type))
      s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else if (d.type === 'lazy') s = (d.getter as () => unknown)();
    else return s;
  }
  return s;
}

/** The option of a union `value` is meant for: the discriminator's match, else the first object whose keys cover it. */
function pickOption(options: unknown[], value: unknown, discriminator?: string, fallback = true): unknown {
  const objects = options
    .map(unwrap)
    .filter((o) => defOf(o)?.type === 'object' || defOf(o)?.type === 'union');
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (discriminator) {
    for (const o of objects) {
      const lit = defOf(unwrap(shapeOf(o)?.[discriminator]));
      if (lit && Array.isArray(lit.values) && (lit.values as unknown[]).includes(v[discriminator])) return o;
    }
  }
  for (const o of objects) {
    if (defOf(o)?.type === 'union') {
      // No fallback inside a nested union: its first object would shadow a later, matching option.
      const inner = pickOption(
        defOf(o)!.options as unknown[],
        value,
        defOf(o)!.discriminator as string,
        false,
      );
      if (inner) return inner;
      continue;
    }
    const shape = shapeOf(o);
    if (shape && Object.keys(v).some((k) => k in shape) && !(discriminator && discriminator in shape))
      return o;
  }
  return fallback ? objects.find((o) => defOf(o)?.type === 'object') : undefined;
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  const d = defOf(unwrap(schema));
  return d?.type === 'object' ? (d.shape as Record<string, unknown>) : undefined;
}

/** The value at `path` below `value` (undefined where the path leaves it). */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path)
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key as string] : undefined;
  return v;
}

/** The schema and value found at `path` below `schema`/`value`. */
export function schemaAt(
  schema: unknown,
  value: unknown,
  path: readonly PropertyKey[],
): { schema: unknown; value: unknown } {
  let s = unwrap(schema);
  let v = value;
  for (const key of path) {
    let d = defOf(s);
    if (d?.type === 'union') {
      s = unwrap(pickOption(d.options as unknown[], v, d.discriminator as string | undefined));
      d = defOf(s);
    }
    if (!d) return { schema: undefined, value: undefined };
    if (d.type === 'object') s = (d.shape as Record<string, unknown>)[String(key)];
    else if (d.type === 'array') s = d.element;
    else if (d.type === 'record') s = d.valueType;
    else return { schema: undefined, value: undefined };
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key as string] : undefined;
    s = unwrap(s);
  }
  const d = defOf(s);
  if (d?.type === 'union') {
    const picked = pickOption(d.options as unknown[], v, d.discriminator as string | undefined);
    if (picked) s = unwrap(picked);
  }
  return { schema: s, value: v };
}

/** What a registered name at `path` names, from the slot's key (`selector.type` → selector). */
const SLOT_KINDS: Readonly<Record<string, string>> = {
  selector: 'selector',
  sampler: 'sampler',
  remover: 'remover',
  sampling: 'sample strategy',
  model: 'rollout model',
  workflow: 'workflow',
  reward: 'reward function',
  trainer: 'trainer',
  monitors: 'monitor',
  op: 'operator',
  mode: 'mode',
};
function kindAt(path: readonly PropertyKey[]): string {
  const keys = [...basePath, ...path].filter((k): k is string => typeof k === 'string');
  const last = keys[keys.length - 1];
  const slot = last === 'type' ? keys[keys.length - 2] : last;
  return (slot && SLOT_KINDS[slot]) ?? 'name';
}

const camel = (k: string) => k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const quote = (xs: string[]) => xs.map((x) => `'${x}'`).join(', ');

/** Hint for an unknown key: its new name if renamed, else the nearest valid keys. */
export function keyHint(key: string, valid: string[]): string | undefined {
  const renamed = RENAMED_KEYS[key];
  if (renamed && valid.includes(renamed)) return `'${key}' was renamed: use '${renamed}'`;
  if (key !== camel(key) && valid.includes(camel(key))) return `keys are camelCase: use '${camel(key)}'`;
  const near = closestNames(key, valid);
  if (near.length > 0) return `did you mean ${quote(near)}?`;
  return valid.length > 0 ? `valid keys: ${valid.join(', ')}` : undefined;
}

/** Hint for an unknown registered name. */
export function nameHint(name: string, valid: string[]): string | undefined {
  const renamed = RENAMED_NAMES[name];
  if (renamed && valid.includes(renamed)) return `'${name}' was renamed: use '${renamed}'`;
  const near = closestNames(name, valid);
  if (near.length > 0) return `did you mean ${quote(near)}?`;
  return valid.length > 0 ? `known: ${valid.join(', ')}` : undefined;
}

/** The discriminated union inside a union's branches (a plug-in slot), if any. */
function innerDiscriminator(issue: z.core.$ZodIssue): { discriminator?: string } | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  for (const branch of issue.errors)
    for (const i of branch) {
      const d = i as unknown as { note?: string; discriminator?: string };
      if (i.code === 'invalid_union' && d.discriminator) return { discriminator: d.discriminator };
    }
  return undefined;
}

const rank = (issue: z.core.$ZodIssue) => (issue.code === 'unrecognized_keys' ? 0 : 1);

/** Explain the most useful of `issues` (an unknown key first: it is usually the cause of the rest). */
export function explainIssues(
  schema: z.ZodType,
  value: unknown,
  issues: readonly z.core.$ZodIssue[],
  /** Where `value` sits in the whole config (`explorer.reward`), so names are explained in place. */
  base = '',
): Explained {
  const first = [...issues].sort((a, b) => rank(a) - rank(b))[0]!;
  basePath = base === '' ? [] : base.split('.');
  return explainIssue(schema, value, first, []);
}

/** The config path above the value being explained (see explainIssues). */
let basePath: string[] = [];

function explainIssue(
  root: z.ZodType,
  value: unknown,
  issue: z.core.$ZodIssue,
  base: PropertyKey[],
): Explained {
  const path = [...base, ...issue.path];
  if (issue.code === 'unrecognized_keys') return explainUnknownKeys(root, value, issue, path);
  if (issue.code === 'invalid_union') {
    const explained =
      misspeltDiscriminator(root, value, issue, path) ?? explainUnion(root, value, issue, path);
    if (explained) return explained;
  }
  if (issue.code === 'invalid_type') {
    const got = schemaAt(root, value, path).value;
    const expected = typeWithArticle(issue.expected);
    if (got === undefined && path.length > 0)
      return {
        path,
        message: `missing required key '${String(path[path.length - 1])}'`,
        hint: `expected ${expected}`,
      };
    return { path, message: `expected ${expected}, got ${valueKind(got)}`, hint: `write ${expected} here` };
  }
  if (issue.code === 'invalid_value') {
    const values = (issue.values ?? []).map(String);
    const got = schemaAt(root, value, path).value;
    const hint = typeof got === 'string' ? nameHint(got, values) : `one of: ${values.join(', ')}`;
    return { path, message: issue.message, ...(hint ? { hint } : {}) };
  }
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    return { path, message: issue.message, hint: 'see `winnow schema` for every key’s range' };
  }
  return { path, message: issue.message };
}

type UnionIssue = Extract<z.core.$ZodIssue, { code: 'invalid_union' }>;

/** An unknown key: the likely misspelt one, with the nearest valid key or its new spelling. */
function explainUnknownKeys(
  root: z.ZodType,
  value: unknown,
  issue: Extract<z.core.$ZodIssue, { code: 'unrecognized_keys' }>,
  path: PropertyKey[],
): Explained {
  const at = schemaAt(root, value, path);
  const valid = Object.keys(shapeOf(at.schema) ?? {});
  // Of several unknown keys, the one that looks like a valid key misspelt is the likely cause.
  const key =
    issue.keys.find((k) => RENAMED_KEYS[k] !== undefined || closestNames(k, valid).length > 0) ??
    issue.keys[0]!;
  if (valid.includes(key) && at.schema) {
    // zod reported another branch of a union: explain the value against the branch it fits.
    const again = (at.schema as z.ZodType).safeParse(at.value);
    if (!again.success) {
      const inner = [...again.error.issues].sort((a, b) => rank(a) - rank(b))[0]!;
      if (!(inner.code === 'unrecognized_keys' && inner.path.length === 0))
        return explainIssue(root, value, inner, path);
    }
  }
  const hint = keyHint(key, valid);
  const more = issue.keys.length > 1 ? ` (and ${issue.keys.length - 1} more unknown key(s))` : '';
  return { path: [...path, key], message: `unknown key '${key}'${more}`, ...(hint ? { hint } : {}) };
}

/** `{ tpye: random }` in a plug-in slot: the discriminating key itself is misspelt, renamed or missing. */
function misspeltDiscriminator(
  root: z.ZodType,
  value: unknown,
  issue: UnionIssue,
  path: PropertyKey[],
): Explained | undefined {
  const here = schemaAt(root, value, path.slice(0, path.length));
  const v = here.value;
  const slot = innerDiscriminator(issue) ?? (issue as unknown as { discriminator?: string });
  if (!(v !== null && typeof v === 'object' && !Array.isArray(v) && slot.discriminator)) return undefined;
  const key = slot.discriminator;
  // Only when the value is meant for the discriminated branch (not, say, a branch step).
  const fits = shapeOf(here.schema);
  const otherBranch = fits !== undefined && !(key in fits) && Object.keys(v as object).some((k) => k in fits);
  if (key in (v as object) || otherBranch) return undefined;
  const keys = Object.keys(v as object);
  const renamed = keys.find((k) => RENAMED_KEYS[k] === key);
  if (renamed)
    return {
      path: [...path, renamed],
      message: `unknown key '${renamed}'`,
      hint: `'${renamed}' was renamed: use '${key}'`,
    };
  const typo = keys.find((k) => closestNames(k, [key]).length > 0);
  if (typo)
    return { path: [...path, typo], message: `unknown key '${typo}'`, hint: `did you mean '${key}'?` };
  if (!keys.includes('module'))
    return {
      path,
      message: `missing '${key}'`,
      hint: `write a name, { ${key}: <name>, params: {…} } or { module: ./file.ts, export, params }`,
    };
  return undefined;
}

/** A union no branch accepted: an unknown name, or the problem in the branch the value was meant for. */
function explainUnion(
  root: z.ZodType,
  value: unknown,
  issue: UnionIssue,
  path: PropertyKey[],
): Explained | undefined {
  const v = schemaAt(root, value, path.slice(0, path.length)).value;
  const disc = issue as unknown as { note?: string; discriminator?: string; options?: unknown[] };
  if (disc.note === 'No matching discriminator' && disc.discriminator) {
    // Read along the value itself: a slot nested in a slot (mixed's children) has no schema path.
    const got = valueAt(value, path);
    const names = (disc.options ?? []).map(String);
    const hint = nameHint(String(got), names);
    return { path, message: `unknown ${kindAt(path)} '${String(got)}'`, ...(hint ? { hint } : {}) };
  }
  const branches = issue.errors;
  // A bare name that is not registered: say so, with the nearest names.
  const enumBranch = branches.find((b) => b.length === 1 && b[0]!.code === 'invalid_value');
  if (typeof v === 'string' && enumBranch) {
    const names = ((enumBranch[0] as { values?: unknown[] }).values ?? []).map(String);
    const hint = nameHint(v, names);
    return { path, message: `unknown ${kindAt(path)} '${v}'`, ...(hint ? { hint } : {}) };
  }
  // Otherwise the branch the value was meant for: the one whose problem lies deepest.
  const depth = (b: readonly z.core.$ZodIssue[]) =>
    Math.max(...b.map((i) => i.path.length + (i.code === 'invalid_union' ? 1 : 0)));
  const isModule = v !== null && typeof v === 'object' && 'module' in (v as object);
  const candidates = branches.filter((b) => b.length > 0);
  const best = isModule
    ? candidates.find((b) => b.some((i) => i.path[0] === 'module' || i.code === 'unrecognized_keys'))
    : [...candidates].sort((a, b) => depth(b) - depth(a))[0];
  if (best && best.length > 0) {
    const inner = [...best].sort((a, b) => rank(a) - rank(b))[0]!;
    return explainIssue(root, value, inner, path);
  }
  return undefined;
}

/** A zod type name as a noun with its article: "an object", "a number", "a list". */
export function typeWithArticle(type: string): string {
  if (type === 'array') return 'a list';
  if (type === 'record') return 'an object';
  return /^[aeiou]/i.test(type) ? `an ${type}` : `a ${type}`;
}

/** What a YAML value is, in words: "an empty value" for `key:` with nothing after it. */
function valueKind(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'an empty value';
  if (Array.isArray(v)) return 'a list';
  return typeWithArticle(typeof v);
}
