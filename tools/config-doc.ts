// Generates docs/config.md — every RFT and task-pipeline key with its type, default and meaning —
// from the JSON Schemas `winnow schema` prints (themselves built from the zod schemas and the
// registries), so the reference cannot drift from what the parser accepts.
//   npm run docs:config            writes docs/config.md
//   node tools/config-doc.ts --check   exits 1 when docs/config.md is stale
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rftJsonSchema, taskPipelineJsonSchema } from '../src/cli/schema-command.ts';
import { RENAMED_KEYS, RENAMED_NAMES } from '../src/core/config-explain.ts';

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && !Array.isArray(v);

interface Row {
  key: string;
  type: string;
  def: string;
  meaning: string;
}

/** A plug-in slot or operator list found while walking, documented in its own section. */
interface Family {
  title: string;
  where: string;
  kind: 'slot' | 'ops';
  entries: Node[];
}

const cell = (s: string) =>
  s
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ')
    // `<run id>` would be read as an HTML tag by Markdown renderers.
    .replace(/(^|[^`])(<[^<>`|]+>)/g, '$1`$2`');
const code = (s: string) => `\`${s}\``;

class Walker {
  readonly rows: Row[] = [];
  readonly families: Family[] = [];
  private readonly root: Node;
  constructor(root: Node) {
    this.root = root;
  }

  resolve(n: Node): Node {
    if (typeof n.$ref !== 'string') return n;
    const target = n.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((s, k) => (s as Node)[k], this.root);
    return { ...(target as Node), ...Object.fromEntries(Object.entries(n).filter(([k]) => k !== '$ref')) };
  }

  /** The named options of a slot (`{ type: <const>, params }`) or an operator list (`{ op: <const>, params }`). */
  private named(options: unknown[], key: 'type' | 'op'): Node[] {
    const flat = options.flatMap((o) => (isNode(o) && Array.isArray(o.oneOf) ? o.oneOf : [o])).filter(isNode);
    return flat.filter(
      (o) =>
        isNode(o.properties) &&
        isNode((o.properties as Node)[key]) &&
        'const' in ((o.properties as Node)[key] as Node),
    );
  }

  /** Rows for `n` at `key`, and for its children. */
  walk(key: string, raw: Node, required: boolean, note = ''): void {
    const n = this.resolve(raw);
    const desc =
      typeof raw.description === 'string'
        ? raw.description
        : typeof n.description === 'string'
          ? n.description
          : '';
    const meaning = desc === '' ? note.replace(/: $/, '') : `${note}${desc}`;
    const def = 'default' in n ? code(JSON.stringify(n.default)) : required ? 'required' : '';
    const push = (type: string) => this.rows.push({ key: code(key), type, def, meaning });

    const anyOf = Array.isArray(n.anyOf) ? n.anyOf.filter(isNode) : undefined;
    // A plug-in slot: a name, { type, params } or { module, export, params }.
    const slotNames = anyOf ? this.named(anyOf, 'type') : [];
    if (anyOf && slotNames.length > 0) {
      const what = anyOf.find((o) => Array.isArray(o.enum))?.description;
      const title = typeof what === 'string' ? (/^An? (.+) by name/.exec(what)?.[1] ?? key) : key;
      this.families.push({ title, where: key, kind: 'slot', entries: slotNames });
      push(`plug-in: ${title} (see below)`);
      return;
    }
    // An operator list.
    const items = isNode(n.items) ? this.resolve(n.items) : undefined;
    const ops = items && Array.isArray(items.anyOf) ? this.named(items.anyOf, 'op') : [];
    if (ops.length > 0) {
      this.families.push({
        title: key === 'experienceOps' ? 'experience operators' : 'task operators',
        where: `${key}[]`,
        kind: 'ops',
        entries: ops,
      });
      push('operator list (see below)');
      return;
    }
    // A list of plug-ins (monitors).
    if (items && Array.isArray(items.anyOf) && this.named(items.anyOf, 'type').length > 0) {
      const what = (items.anyOf as Node[]).find((o) => Array.isArray(o.enum))?.description;
      const title = typeof what === 'string' ? (/^An? (.+) by name/.exec(what)?.[1] ?? key) : key;
      this.families.push({
        title,
        where: `${key}[]`,
        kind: 'slot',
        entries: this.named(items.anyOf, 'type'),
      });
      push(`list of plug-ins: ${title} (see below)`);
      return;
    }
    // Alternative object forms (a task source: a file or a table).
    const forms = anyOf?.map((o) => this.resolve(o)).filter((o) => isNode(o.properties));
    if (anyOf && forms && forms.length === anyOf.length && forms.length > 1 && !isPredicate(forms)) {
      push(`one of ${forms.length} forms`);
      forms.forEach((f, i) => {
        this.children(key, f, `form ${i + 1} (${Object.keys(f.properties as Node)[0]}): `);
      });
      return;
    }
    push(this.typeOf(n));
    if (isNode(n.properties)) this.children(key, n, '');
  }

  private children(key: string, n: Node, note: string): void {
    const req = new Set((n.required ?? []) as string[]);
    for (const [k, v] of Object.entries(n.properties as Node))
      if (isNode(v)) this.walk(key === '' ? k : `${key}.${k}`, v, req.has(k), note);
  }

  typeOf(raw: Node, seen: ReadonlySet<string> = new Set()): string {
    const ref = typeof raw.$ref === 'string' ? raw.$ref : undefined;
    if (ref && seen.has(ref)) return 'any';
    const inner = ref ? new Set([...seen, ref]) : seen;
    const n = this.resolve(raw);
    if (Array.isArray(n.anyOf)) {
      const opts = n.anyOf.filter(isNode).map((o) => this.resolve(o));
      if (isPredicate(opts)) return 'predicate (docs/operators.md)';
      const types = new Set(opts.map((o) => o.type));
      if (['string', 'number', 'boolean', 'null'].every((t) => types.has(t))) return 'any JSON value';
      return [...new Set(opts.map((o) => this.typeOf(o, inner)))].join(' or ');
    }
    if ('const' in n) return code(JSON.stringify(n.const));
    if (Array.isArray(n.enum)) return n.enum.map((e) => code(String(e))).join(' | ');
    const t = n.type;
    if (t === 'array') return `list of ${isNode(n.items) ? this.typeOf(n.items, inner) : 'any'}`;
    if (t === 'object') {
      if (isNode(n.properties)) return 'object';
      if (isNode(n.additionalProperties))
        return `map of string → ${this.typeOf(n.additionalProperties, inner)}`;
      return 'object';
    }
    if (t === 'number' || t === 'integer') {
      const b: string[] = [];
      if (typeof n.minimum === 'number' && n.minimum > Number.MIN_SAFE_INTEGER) b.push(`≥ ${n.minimum}`);
      if (typeof n.exclusiveMinimum === 'number') b.push(`> ${n.exclusiveMinimum}`);
      if (typeof n.maximum === 'number' && n.maximum < Number.MAX_SAFE_INTEGER) b.push(`≤ ${n.maximum}`);
      if (typeof n.exclusiveMaximum === 'number') b.push(`< ${n.exclusiveMaximum}`);
      return [t, ...b].join(' ');
    }
    if (typeof t === 'string') return t;
    return 'any';
  }
}

/** Predicates (`{ field, … }`, `all`, `any`, `not`) are documented once, in docs/operators.md. */
function isPredicate(forms: Node[]): boolean {
  return forms.some((f) => isNode(f.properties) && 'not' in (f.properties as Node));
}

function table(rows: Row[], first = 'key'): string[] {
  if (rows.length === 0) return ['(no params)'];
  return [
    `| ${first} | type | default | meaning |`,
    '|---|---|---|---|',
    ...rows.map((r) => `| ${cell(r.key)} | ${cell(r.type)} | ${cell(r.def)} | ${cell(r.meaning)} |`),
  ];
}

function section(title: string, schema: Node): string[] {
  const w = new Walker(schema);
  const req = new Set((schema.required ?? []) as string[]);
  for (const [k, v] of Object.entries(schema.properties as Node)) if (isNode(v)) w.walk(k, v, req.has(k));
  const out = [`## ${title}`, '', ...table(w.rows), ''];
  for (const fam of w.families) {
    out.push(`### ${fam.title} — ${code(fam.where)}`, '');
    for (const e of fam.entries) {
      const props = e.properties as Node;
      const name = String(((fam.kind === 'ops' ? props.op : props.type) as Node).const);
      out.push(`#### ${code(name)}`, '');
      if (typeof e.description === 'string') out.push(cell(e.description), '');
      const params = isNode(props.params) ? w.resolve(props.params) : {};
      const pw = new Walker(schema);
      if (isNode(params.properties)) {
        const preq = new Set((params.required ?? []) as string[]);
        for (const [k, v] of Object.entries(params.properties)) if (isNode(v)) pw.walk(k, v, preq.has(k));
      }
      out.push(...table(pw.rows, 'param'), '');
    }
  }
  return out;
}

export function configDoc(): string {
  const renamed = [
    ...Object.entries(RENAMED_KEYS).map(([a, b]) => `| key | ${code(a)} | ${code(b)} |`),
    ...Object.entries(RENAMED_NAMES).map(([a, b]) => `| name | ${code(a)} | ${code(b)} |`),
  ];
  return [
    '# Config reference',
    '',
    '<!-- Generated by `npm run docs:config` (tools/config-doc.ts) from the zod schemas; do not edit by hand. -->',
    '',
    'Every key of the two config kinds, with its type, default and meaning. The same schemas drive',
    '`winnow schema task|rft` (JSON Schema for editors) and the config parser, so this page, the',
    'editor completion and the errors agree. Keys are camelCase; registered names are snake_case.',
    '`required` marks a key without a default; an empty default means the key is optional.',
    '',
    '## Plug-in slots',
    '',
    'Every pluggable stage (selector, buffer sampler, sample strategy, model, workflow, reward, trainer,',
    'monitor) takes one of three forms, and every operator list entry the matching two:',
    '',
    '| form | example | meaning |',
    '|---|---|---|',
    '| `name` | `selector: bots` | a registered plug-in with its default params |',
    '| `{ type, params }` | `selector: { type: bots, params: { target: 0.5 } }` | a registered plug-in; `params` checked by its own schema |',
    '| `{ module, export, params }` | `reward: { module: ./my-reward.ts, export: score }` | a user module (path relative to the config file; `export` defaults to `default`) |',
    '',
    'Operator lists (`operators`, `experienceOps`) take `{ op, name?, params }`, `{ module, export, name?, params }`',
    'or, for task operators, `{ branch: { routes: [{ name, when, operators }], otherwise } }`.',
    '',
    '## Renamed keys and names',
    '',
    'Old spellings are refused with a hint naming the new one.',
    '',
    '| what | old | new |',
    '|---|---|---|',
    ...renamed,
    '',
    ...section('RFT run (`kind: rft`)', rftJsonSchema()),
    ...section('Task pipeline (`kind: tasks`, the default)', taskPipelineJsonSchema()),
  ]
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/\n*$/, '\n');
}

export const CONFIG_DOC_FILE = join(import.meta.dirname, '..', 'docs', 'config.md');

if (import.meta.main) {
  const text = configDoc();
  if (process.argv.includes('--check')) {
    const current = readFileSync(CONFIG_DOC_FILE, 'utf8');
    if (current !== text) {
      process.stderr.write('docs/config.md is stale: run npm run docs:config\n');
      process.exit(1);
    }
  } else {
    writeFileSync(CONFIG_DOC_FILE, text);
    process.stdout.write(`wrote ${CONFIG_DOC_FILE}\n`);
  }
}
