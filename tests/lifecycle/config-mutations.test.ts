import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { formatPath } from '../../src/core/config.ts';
import { schemaAt } from '../../src/core/config-explain.ts';
import { RftConfigSchema } from '../../src/lifecycle/run/rft-config.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { shippedPipeline, treeHashes, writeYaml } from './rft-files.ts';

/**
 * Property: any single mutation of a valid RFT config — a key misspelt, a value of the wrong type,
 * a path that does not exist, an unknown registry name — makes `winnow run` exit 2 with one line
 * naming the key and a hint, and leaves the database and the runs folder byte-identical.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = Array<string | number>;

/** Subtrees whose keys are the user's own names (any key is valid there). */
const FREE_KEYS = [/\.mapping\.(features|meta)$/];
const NAME_LEAVES = [
  /^selector\.type$/,
  /^explorer\.(workflow|reward)$/,
  /^explorer\.model\.type$/,
  /^experienceOps\[\d+\]\.op$/,
  /^buffer\.sampler\.type$/,
  /^trainer\.type$/,
];
const PATH_LEAVES = [/^tasks\.path$/, /^heldout\.source\.path$/, /^explorer\.model\.params\.path$/];

interface Site {
  path: Path;
  value: Json;
}

function sites(v: Json, path: Path = []): { keys: Site[]; leaves: Site[] } {
  const keys: Site[] = [];
  const leaves: Site[] = [];
  const walk = (x: Json, p: Path) => {
    if (Array.isArray(x)) {
      for (const [i, y] of x.entries()) walk(y, [...p, i]);
    } else if (x !== null && typeof x === 'object') {
      const free = FREE_KEYS.some((r) => r.test(formatPath(p)));
      for (const [k, y] of Object.entries(x)) {
        if (!free) keys.push({ path: [...p, k], value: y });
        walk(y, [...p, k]);
      }
    } else leaves.push({ path: p, value: x });
  };
  walk(v, path);
  return { keys, leaves };
}

const get = (o: Json, p: Path): Json => p.reduce<Json>((x, k) => (x as Record<string, Json>)[k]!, o);
function setAt(o: Json, p: Path, v: Json) {
  (get(o, p.slice(0, -1)) as Record<string | number, Json>)[p[p.length - 1]!] = v;
}
function renameKey(o: Json, p: Path, to: string) {
  const parent = get(o, p.slice(0, -1)) as Record<string, Json>;
  const from = p[p.length - 1] as string;
  const entries = Object.entries(parent).map(([k, v]) => [k === from ? to : k, v] as const);
  for (const k of Object.keys(parent)) delete parent[k];
  for (const [k, v] of entries) parent[k] = v;
}

/** A misspelling that is no valid key at that place (so the config really is wrong). */
function misspell(key: string, at: number, letter: string, valid: string[]): string {
  for (let i = 0; i < 26; i++) {
    const c = String.fromCharCode(((letter.charCodeAt(0) - 97 + i) % 26) + 97);
    const pos = at % (key.length + 1);
    const typo = key.slice(0, pos) + c + key.slice(pos);
    if (!valid.includes(typo)) return typo;
  }
  return `${key}zz`;
}

type Mutation =
  | { kind: 'key'; site: number; at: number; letter: string }
  | { kind: 'type'; site: number }
  | { kind: 'path'; site: number }
  | { kind: 'name'; site: number; at: number; letter: string };

describe('every single mutation of a valid config is refused before anything is written', () => {
  const dir = tempDir('winnow-mutations-');
  const db = join(dir, 'state', 'db');
  const runs = join(dir, 'state', 'runs');
  const base = shippedPipeline('arithmetic-replay.yaml');
  const valid = JSON.parse(
    JSON.stringify({ ...base, lifecycle: { ...(base.lifecycle as object), steps: 1, checkpointEvery: 1 } }),
  ) as Json;
  const { keys, leaves } = sites(valid);
  const names = leaves.filter((s) => NAME_LEAVES.some((r) => r.test(formatPath(s.path))));
  const paths = leaves.filter((s) => PATH_LEAVES.some((r) => r.test(formatPath(s.path))));
  const typed = leaves.filter((s) => !names.includes(s) && !paths.includes(s));
  let before: Record<string, string>;

  beforeAll(() => {
    const r = winnow([
      'run',
      writeYaml(join(dir, 'valid.yaml'), valid),
      '--db',
      db,
      '--runs-dir',
      runs,
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    before = treeHashes(join(dir, 'state'));
  }, 240_000);

  afterEach(() => vi.restoreAllMocks());

  it('finds mutation sites of every kind', () => {
    expect(names.map((s) => formatPath(s.path))).toEqual([
      'selector.type',
      'explorer.model.type',
      'explorer.workflow',
      'explorer.reward',
      'experienceOps[0].op',
      'experienceOps[1].op',
      'experienceOps[2].op',
      'buffer.sampler.type',
      'trainer.type',
    ]);
    expect(paths.map((s) => formatPath(s.path))).toEqual([
      'tasks.path',
      'heldout.source.path',
      'explorer.model.params.path',
    ]);
    expect(keys.length).toBeGreaterThan(40);
    expect(typed.length).toBeGreaterThan(20);
  });

  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({
      kind: fc.constant('key' as const),
      site: fc.nat(),
      at: fc.nat(),
      letter: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
    }),
    fc.record({ kind: fc.constant('type' as const), site: fc.nat() }),
    fc.record({ kind: fc.constant('path' as const), site: fc.nat() }),
    fc.record({
      kind: fc.constant('name' as const),
      site: fc.nat(),
      at: fc.nat(),
      letter: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
    }),
  );

  /** Apply a mutation; returns the config and the config path the error must name. */
  function apply(m: Mutation): { config: Json; names: string } {
    const config = structuredClone(valid);
    if (m.kind === 'key') {
      const s = keys[m.site % keys.length]!;
      const key = s.path[s.path.length - 1] as string;
      const parentPath = s.path.slice(0, -1);
      const known = Object.keys(
        (schemaAt(RftConfigSchema, config, parentPath).schema as { shape?: object } | undefined)?.shape ?? {},
      );
      const typo = misspell(key, m.at, m.letter, known);
      renameKey(config, s.path, typo);
      return { config, names: formatPath([...parentPath, typo]) };
    }
    if (m.kind === 'type') {
      const s = typed[m.site % typed.length]!;
      setAt(config, s.path, typeof s.value === 'string' ? 12345 : 'not-a-number');
      return { config, names: formatPath(s.path) };
    }
    if (m.kind === 'path') {
      const s = paths[m.site % paths.length]!;
      setAt(config, s.path, join(dir, 'nowhere', 'missing.jsonl'));
      return { config, names: formatPath(s.path) };
    }
    const s = names[m.site % names.length]!;
    setAt(config, s.path, misspell(String(s.value), m.at, m.letter, []));
    return { config, names: formatPath(s.path) };
  }

  it('exit 2, one line naming the key with a hint, nothing changed on disk', async () => {
    await fc.assert(
      fc.asyncProperty(mutation, async (m) => {
        const { config, names: key } = apply(m);
        const file = writeYaml(join(dir, 'mutated.yaml'), config);
        let err = '';
        vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
          err += String(chunk);
          return true;
        });
        vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
        const code = await main(['run', file, '--db', db, '--runs-dir', runs, '--quiet']);
        vi.restoreAllMocks();
        const lines = err.trim().split('\n');
        expect({ m, code, lines: lines.length }).toEqual({ m, code: 2, lines: 1 });
        expect(lines[0]).toContain(`${file}: ${key}`);
        expect(lines[0]).toMatch(/\(.+\)$/); // the hint
        expect(treeHashes(join(dir, 'state'))).toEqual(before);
      }),
      { numRuns: 100, seed: 20261124 },
    );
  }, 300_000);
});
