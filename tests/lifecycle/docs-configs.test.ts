import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseConfig } from '../../src/core/config.ts';
import { taskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { rftConfigSchema } from '../../src/lifecycle/run/rft-config.ts';
import { resolveOpenAIConfig } from '../../src/models/openai/config.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { isDataJuicerRecipe } from '../../src/recipes/data-juicer-recipe.ts';
import { translateRecipe } from '../../src/recipes/translate-recipe.ts';
import { CONFIG_DOC_FILE, configDoc } from '../../tools/config-doc.ts';
import { REPO_ROOT, winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const RFT = rftConfigSchema();
const TASK = taskPipelineConfigSchema();
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The YAML examples in docs/model-servers.md are real `explorer:` blocks that validate. */
describe('docs/model-servers.md examples', () => {
  const md = readFileSync(join(REPO_ROOT, 'docs', 'model-servers.md'), 'utf8');
  const blocks = [...md.matchAll(/```yaml\n(explorer:\n[\s\S]*?)```/g)].map((m) => m[1]!);

  it('has one example per server and each validates against the run config and the client', () => {
    expect(blocks.length).toBe(4);
    for (const block of blocks) {
      const { explorer } = parse(block) as { explorer: Record<string, unknown> };
      const config = RFT.parse({
        name: 'docs',
        kind: 'rft',
        tasks: { table: 'tasks' },
        explorer,
        trainer: { type: 'export', params: {} },
      });
      expect((config.explorer.model as { type?: string }).type).toBe('openai');
      const model = config.explorer.model as { type: 'openai'; params: Record<string, unknown> };
      const resolved = resolveOpenAIConfig(model.params, { env: {} });
      expect(resolved.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    }
  });
});

// ---- every YAML config in the docs and pipelines/ validates against the schemas `winnow schema` prints

interface Block {
  where: string;
  text: string;
}

/** Every ```yaml block of README.md and docs/*.md (indented fences inside lists included, dedented). */
function yamlBlocks(): Block[] {
  const files = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((f) => join('docs', f))].filter(
    (f) => f.endsWith('.md'),
  );
  const out: Block[] = [];
  for (const f of files) {
    const md = readFileSync(join(REPO_ROOT, f), 'utf8');
    for (const m of md.matchAll(/^( *)```ya?ml\n([\s\S]*?)^\1```/gm)) {
      const indent = m[1]!.length;
      const line = md.slice(0, m.index).split('\n').length;
      const text = m[2]!
        .split('\n')
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join('\n');
      out.push({ where: `${f}:${line}`, text });
    }
  }
  return out;
}

/** Blocks that are not configs at all, each with the reason. (None today: keep the list honest.) */
const SKIPPED: Record<string, string> = {};

/**
 * A block showing alternatives for one key (`reward: math` then `reward: { type: … }`) repeats
 * that key; each top-level entry is then checked on its own.
 */
function parseAlternatives(text: string): unknown[] {
  try {
    return [parse(text, { uniqueKeys: true })];
  } catch {
    const chunks: string[][] = [];
    for (const line of text.split('\n')) {
      if (/^[A-Za-z_]/.test(line)) chunks.push([line]);
      else chunks[chunks.length - 1]?.push(line);
    }
    return chunks.map((c) => parse(c.join('\n')));
  }
}

/** Elisions in prose examples (`{ batchTasks: 8, … }`) are not keys. */
function dropElisions(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== '…').map(dropElisions);
  if (!isObj(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => k !== '…')
      .map(([k, x]) => [k, dropElisions(x)]),
  );
}

function deepMerge(base: unknown, over: unknown): unknown {
  if (!isObj(base) || !isObj(over)) return over;
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}

const RFT_BASE = { name: 'docs', kind: 'rft', tasks: { table: 'tasks' }, explorer: { model: 'tiny' } };
const TASK_BASE = {
  name: 'docs',
  input: { path: 'x.jsonl' },
  mapping: { taskset: 'docs', prompt: 'question' },
};
const keysOf = (schema: { shape: Obj }) => new Set(Object.keys(schema.shape));
const RFT_KEYS = keysOf(RFT as unknown as { shape: Obj });
const TASK_KEYS = keysOf(TASK as unknown as { shape: Obj });
const MAPPING_KEYS = new Set(['taskset', 'id', 'prompt', 'answer', 'messages', 'features', 'meta']);
const EXPLORER_KEYS = keysOf((RFT as unknown as { shape: { explorer: { shape: Obj } } }).shape.explorer);

type Checked = { kind: 'rft' | 'task'; as: string };

/**
 * Check one YAML value from the docs. A full config (`kind: rft`; `input:` + `mapping:` or
 * `kind: tasks`) is parsed as is; a fragment (no `name:`) is placed where its keys belong — the
 * top of an RFT or task config, a task `mapping:`, an RFT `explorer:`, or an operator list — over a minimal valid config.
 */
function checkConfig(value: unknown, text: string, where: string): Checked {
  const v = dropElisions(value);
  const opts = { file: where };
  if (isDataJuicerRecipe(v)) {
    // A Data-Juicer recipe (docs/recipes.md): translated as `winnow run` would, over a stand-in dataset.
    const cwd = tempDir('winnow-docs-recipe-');
    const datasets = (typeof v.dataset_path === 'string' ? v.dataset_path : '').split(/\s+/);
    for (const d of datasets.filter((x) => x !== '')) {
      const path = join(cwd, d);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, '{"text": "a stand-in row"}\n');
    }
    translateRecipe(v, { file: where, cwd, operators: taskOperatorRegistry().names() });
    return { kind: 'task', as: 'recipe' };
  }
  if (/^kind: rft/m.test(text)) {
    parseConfig(RFT, v, opts);
    return { kind: 'rft', as: 'config' };
  }
  if ((/^mapping:/m.test(text) && /^input:/m.test(text)) || /^kind: tasks/m.test(text)) {
    parseConfig(TASK, v, opts);
    return { kind: 'task', as: 'config' };
  }
  if (Array.isArray(v)) {
    if (where.startsWith('docs/experience-operators.md')) {
      parseConfig(RFT, deepMerge(RFT_BASE, { experienceOps: v }), opts);
      return { kind: 'rft', as: 'experienceOps' };
    }
    parseConfig(TASK, deepMerge(TASK_BASE, { operators: v }), opts);
    return { kind: 'task', as: 'operators' };
  }
  if (!isObj(v)) throw new Error(`${where}: a YAML block that is neither a config nor a fragment of one`);
  const keys = Object.keys(v);
  const taskOnly = keys.some((k) => TASK_KEYS.has(k) && !RFT_KEYS.has(k));
  if (taskOnly) {
    parseConfig(TASK, deepMerge(TASK_BASE, v), opts);
    return { kind: 'task', as: 'fragment' };
  }
  if (keys.every((k) => MAPPING_KEYS.has(k)) && !keys.every((k) => RFT_KEYS.has(k))) {
    parseConfig(TASK, deepMerge(TASK_BASE, { mapping: v }), opts);
    return { kind: 'task', as: 'mapping' };
  }
  if (keys.every((k) => EXPLORER_KEYS.has(k)) && !keys.every((k) => RFT_KEYS.has(k))) {
    parseConfig(RFT, deepMerge(RFT_BASE, { explorer: v }), opts);
    return { kind: 'rft', as: 'explorer' };
  }
  // Unknown top-level keys fail here, with the schema's hint (a renamed key names its new spelling).
  parseConfig(RFT, deepMerge(RFT_BASE, v), opts);
  return { kind: 'rft', as: 'fragment' };
}

describe('every YAML config in README.md, docs/*.md and pipelines/*.yaml validates', () => {
  const blocks = yamlBlocks();

  it('finds the docs’ YAML blocks', () => {
    // Every doc with configs in it is covered (a renamed fence or folder would silently skip them).
    const docs = new Set(blocks.map((b) => b.where.split(':')[0]));
    for (const d of [
      'docs/operators.md',
      'docs/buffer.md',
      'docs/selectors.md',
      'docs/rewards.md',
      'docs/io.md',
    ])
      expect(docs, d).toContain(d);
    expect(blocks.length).toBeGreaterThanOrEqual(30);
  });

  it.each(yamlBlocks().map((b) => [b.where, b] as const))('%s', (where, block) => {
    if (SKIPPED[where]) return;
    for (const value of parseAlternatives(block.text)) {
      const r = checkConfig(value, block.text, where);
      expect(['rft', 'task']).toContain(r.kind);
    }
  });

  const pipelines = readdirSync(join(REPO_ROOT, 'pipelines')).filter((f) => /\.ya?ml$/.test(f));
  it.each(pipelines)('pipelines/%s', (f) => {
    const file = join(REPO_ROOT, 'pipelines', f);
    const raw = parse(readFileSync(file, 'utf8')) as Obj;
    const config = parseConfig(raw.kind === 'rft' ? RFT : TASK, raw, { file: relative(REPO_ROOT, file) });
    expect(config.name).toBe(raw.name);
  });
});

// ---- the JSON Schema printed by `winnow schema rft` accepts the shipped pipeline

type JsonSchema = Obj | boolean;

/**
 * A small JSON Schema (2020-12) checker for the keywords zod emits: $ref, anyOf/oneOf, const,
 * enum, type, properties/required/additionalProperties, items, numeric bounds. Returns problems.
 */
function check(schema: JsonSchema, value: unknown, root: Obj, path = '$'): string[] {
  if (schema === true || schema === undefined) return [];
  if (schema === false) return [`${path}: not allowed`];
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((s, k) => (s as Obj)[k], root);
    return check(target as JsonSchema, value, root, path);
  }
  const errs: string[] = [];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const opts = schema[key] as JsonSchema[] | undefined;
    if (opts && !opts.some((o) => check(o, value, root, path).length === 0))
      errs.push(`${path}: matches none of ${key}`);
  }
  if ('const' in schema && value !== schema.const)
    errs.push(`${path}: expected ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errs.push(`${path}: not in enum`);
  const types = schema.type === undefined ? [] : ([] as string[]).concat(schema.type as string);
  const typeOf = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  if (
    types.length > 0 &&
    !types.some((t) => t === typeOf(value) || (t === 'number' && typeOf(value) === 'integer'))
  )
    return [...errs, `${path}: expected ${types.join('|')}, got ${typeOf(value)}`];
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errs.push(`${path}: below minimum`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errs.push(`${path}: above maximum`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
      errs.push(`${path}: too small`);
  }
  if (isObj(value) && isObj(schema.properties ?? {})) {
    const props = (schema.properties ?? {}) as Obj;
    for (const [k, v] of Object.entries(value)) {
      if (k in props) errs.push(...check(props[k] as JsonSchema, v, root, `${path}.${k}`));
      else if (schema.additionalProperties === false && schema.properties)
        errs.push(`${path}: unknown key '${k}'`);
      else if (isObj(schema.additionalProperties))
        errs.push(...check(schema.additionalProperties, v, root, `${path}.${k}`));
    }
    for (const k of (schema.required ?? []) as string[])
      if (!(k in value)) errs.push(`${path}: missing '${k}'`);
  }
  if (Array.isArray(value) && schema.items !== undefined)
    for (const [i, v] of value.entries())
      errs.push(...check(schema.items as JsonSchema, v, root, `${path}[${i}]`));
  return errs;
}

describe('winnow schema rft', () => {
  const r = winnow(['schema', 'rft']);
  const schema = JSON.parse(r.stdout) as Obj & { properties: Record<string, Obj> };
  const bots = parse(readFileSync(join(REPO_ROOT, 'pipelines', 'arithmetic-bots.yaml'), 'utf8')) as Obj;

  it('accepts pipelines/arithmetic-bots.yaml: every key known, every plug-in name among the schema’s names', () => {
    expect(r.code, r.stderr).toBe(0);
    for (const k of Object.keys(bots)) expect(Object.keys(schema.properties), k).toContain(k);
    const selectorTypes = (
      (schema.properties.selector!.anyOf as Obj[]).find((o) => o.oneOf)!.oneOf as Obj[]
    ).map((o) => ((o.properties as Obj).type as Obj).const);
    expect(selectorTypes).toContain((bots.selector as Obj).type);
    expect(selectorTypes).toContain('random');
    expect(check(schema, bots, schema)).toEqual([]);
  });

  it('and rejects the same file with a misspelt key, an unknown selector or an out-of-range param', () => {
    const wrong = (patch: Obj) => check(schema, deepMerge(bots, patch), schema);
    expect(wrong({ runDir: 'x' })).toEqual(["$: unknown key 'runDir'"]);
    expect(wrong({ selector: { type: 'botz' } })).toEqual(['$.selector: matches none of anyOf']);
    expect(wrong({ explorer: { repeat: 0 } })).toEqual(['$.explorer.repeat: too small']);
  });
});

describe('docs/config.md', () => {
  it('is exactly what tools/config-doc.ts generates from the schemas (npm run docs:config)', () => {
    const doc = configDoc();
    expect(readFileSync(CONFIG_DOC_FILE, 'utf8')).toBe(doc);
    // Spot checks that the walk reached the leaves: a top-level key, a nested one, a plug-in param, an operator param.
    expect(doc).toContain(
      '| `explorer.repeat` | integer > 0 | `8` | Rollouts per task (the GRPO group size). |',
    );
    expect(doc).toContain('| `lifecycle.maxExploreAhead` | integer ≥ 0 | `1` |');
    expect(doc).toMatch(/#### `bots`\n/);
    expect(doc).toMatch(/#### `near_dedup`\n/);
    expect(doc).toContain('| key | `discipline` | `sampler` |');
    expect(doc).toContain('| name | `prioritized` | `advantage_priority` |');
  });
});
