import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WinnowError } from '../../src/core/errors.ts';
import { engineError } from '../../src/inspect/table-target.ts';
import { type CliResult, winnow, winnowInProcess } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type FilterDb, makeFilterDb } from './fixtures/filter-db.ts';

/**
 * Issue #11 ("Raw engine errors", "Bad arguments silently ignored"): every bad inspect/export
 * invocation exits with the documented code and exactly one line naming what is wrong, with no
 * stack, no engine internals, and the database byte-identical afterwards.
 */
const dir = tempDir('winnow-bad-ie-');
let f: FilterDb;
beforeAll(async () => {
  f = await makeFilterDb(dir);
}, 240_000);

/** Every file under `root` with its SHA-256, so any write (even a new empty version) shows. */
function hashTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(root);
  return out;
}

interface Case {
  name: string;
  args: (f: FilterDb) => string[];
  code: number;
  message: RegExp;
}

const missing = join(dir, 'no-such-db');
const out = () => join(dir, 'never-written.jsonl');

const CASES: Case[] = [
  // Bad arguments silently ignored, once.
  {
    name: 'inspect --limit abc',
    args: (f) => ['inspect', '--db', f.db, '--table', 'tasks', '--limit', 'abc'],
    code: 2,
    message: /^error: --limit expects an integer ≥ 0, got 'abc'$/,
  },
  {
    name: 'inspect --limit -1',
    args: (f) => ['inspect', '--db', f.db, '--table', 'tasks', '--limit', '-1'],
    code: 2,
    message: /^error: --limit expects an integer ≥ 0, got '-1'$/,
  },
  {
    name: 'inspect --limit 2.5',
    args: (f) => ['inspect', '--db', f.db, '--limit', '2.5'],
    code: 2,
    message: /^error: --limit expects an integer ≥ 0, got '2\.5'$/,
  },
  {
    name: 'inspect --db /nonexistent',
    args: () => ['inspect', '--db', missing],
    code: 2,
    message: new RegExp(`^error: no database folder at ${missing} \\(pass --db DIR`),
  },
  {
    name: 'export --db /nonexistent',
    args: () => ['export', '--db', missing, '--out', out()],
    code: 2,
    message: /^error: no database folder at .*no-such-db /,
  },
  {
    name: 'export --taskset nope',
    args: (f) => ['export', '--db', f.db, '--taskset', 'nope', '--out', out()],
    code: 2,
    message: /^error: no rows for taskset 'nope' in table 'tasks' \(tasksets: arithmetic, mixed\)$/,
  },
  {
    name: 'inspect --taskset arithmtic',
    args: (f) => ['inspect', '--db', f.db, '--taskset', 'arithmtic'],
    code: 2,
    message: /^error: no rows for taskset 'arithmtic' .*did you mean 'arithmetic'\?/,
  },
  // Raw engine errors, once.
  {
    name: 'inspect --db <a file>',
    args: (f) => ['inspect', '--db', join(f.db, '..', 'a.jsonl')],
    code: 2,
    message: /^error: .*a\.jsonl is a file, not a database folder/,
  },
  {
    name: 'export --version 999',
    args: (f) => ['export', '--db', f.db, '--version', '999', '--out', out()],
    code: 2,
    message: /^error: table 'tasks' has no version 999 \(versions 1–\d+; tags: run-\S+, run-\S+\)$/,
  },
  {
    name: 'export --version run-nope',
    args: (f) => ['export', '--db', f.db, '--version', 'run-nope', '--out', out()],
    code: 2,
    message: /^error: table 'tasks' has no version or tag 'run-nope' \(.*versions 1–\d+; tags: run-/,
  },
  {
    name: 'inspect --table tasks --version 0',
    args: (f) => ['inspect', '--db', f.db, '--table', 'tasks', '--version', '0'],
    code: 2,
    message: /^error: table 'tasks' has no version 0 /,
  },
  {
    name: '--where unknown column',
    args: (f) => ['inspect', '--db', f.db, '--run', 'rft1', '--where', 'rewrd > 0'],
    code: 2,
    message: /^error: --where: unknown column 'rewrd' at 1 \(did you mean 'reward'\?\)$/,
  },
  {
    name: '--where missing value',
    args: (f) => ['inspect', '--db', f.db, '--table', 'tasks', '--where', "taskset = 'a' AND source_row >"],
    code: 2,
    message: /^error: --where: expected a value .*got end of expression at 31$/,
  },
  {
    name: '--where double quotes',
    args: (f) => ['export', '--db', f.db, '--where', 'taskset = "mixed"', '--out', out()],
    code: 2,
    message: /^error: --where: double quotes are not allowed at 11 \(write strings in single quotes/,
  },
  {
    name: '--where wrong type',
    args: (f) => ['inspect', '--db', f.db, '--run', 'rft1', '--where', "reward > 'high'"],
    code: 2,
    message: /^error: --where: column 'reward' holds numbers, got string "high" at 10$/,
  },
  {
    name: '--where unclosed paren',
    args: (f) => ['inspect', '--db', f.db, '--table', 'tasks', '--where', '(source_row > 1'],
    code: 2,
    message: /^error: --where: expected '\)', got end of expression at 16$/,
  },
  {
    name: '--where injection',
    args: (f) => ['inspect', '--db', f.db, '--table', 'tasks', '--where', "id = 'x'; DROP TABLE tasks"],
    code: 2,
    message: /^error: --where: unexpected character ';' at 9$/,
  },
  {
    name: '--where trailing words',
    args: (f) => ['inspect', '--db', f.db, '--table', 'tasks', '--where', 'source_row > 1 source_row'],
    code: 2,
    message: /^error: --where: unexpected 'source_row' at 16 \(join tests with AND \/ OR\)$/,
  },
  {
    name: 'inspect --table taks',
    args: (f) => ['inspect', '--db', f.db, '--table', 'taks'],
    code: 2,
    message: /^error: no table 'taks' in .* \(did you mean 'tasks'\?\)$/,
  },
  {
    name: 'inspect --run nope',
    args: (f) => ['inspect', '--db', f.db, '--run', 'rft2'],
    code: 2,
    message: /^error: no run 'rft2' in .* \(did you mean 'rft1'\?\)$/,
  },
  {
    name: '--taskset on a table without one',
    args: (f) => ['inspect', '--db', f.db, '--table', 'runs', '--taskset', 'x'],
    code: 2,
    message: /^error: table 'runs' has no taskset column/,
  },
  {
    name: 'inspect --version without --table',
    args: (f) => ['inspect', '--db', f.db, '--version', '2'],
    code: 2,
    message: /^error: --version needs --table T/,
  },
  {
    name: 'export without --out',
    args: (f) => ['export', '--db', f.db],
    code: 2,
    message: /^error: export needs --out FILE\.jsonl or --out FILE\.parquet$/,
  },
  {
    name: 'export --out x.csv',
    args: (f) => ['export', '--db', f.db, '--out', join(dir, 'x.csv')],
    code: 2,
    message: /^error: --out must end in \.jsonl or \.parquet, got .*x\.csv$/,
  },
  {
    name: 'inspect with two positionals',
    args: (f) => ['inspect', 'tasks', 'more', '--db', f.db],
    code: 2,
    message: /^error: winnow inspect takes at most 1 argument\(s\) \(\[TABLE\]\), got 2: 'tasks' 'more'$/,
  },
];

describe('bad inspect/export invocations', () => {
  it('the table covers at least 12 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(12);
  });

  /** The code, the one stderr line, no stack or engine internals, and nothing written. */
  function expectRefused(c: Case, r: CliResult, before: Record<string, string>): void {
    expect(r.code, r.stderr).toBe(c.code);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(c.message);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stderr).not.toMatch(/\.cargo|\.rs:\d+|SELECT 1 FROM/);
    expect(hashTree(f.db)).toEqual(before);
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(out())).toBe(false);
  }

  // Every case through the CLI's own main, in this process (no Node start-up per case)...
  for (const c of CASES) {
    it(`${c.name} → exit ${c.code}, one line, database unchanged`, async () => {
      const before = hashTree(f.db);
      expectRefused(c, await winnowInProcess(c.args(f)), before);
    });
  }

  // ...and one of each kind as a real `winnow` process: the exit status and what reaches stderr.
  const REAL = [
    'inspect --limit abc',
    'inspect --db <a file>',
    'export --version run-nope',
    '--where injection',
  ];
  it.each(REAL)('%s, as a real process: the same exit code and line', (name) => {
    const c = CASES.find((x) => x.name === name)!;
    const before = hashTree(f.db);
    expectRefused(c, winnow(c.args(f)), before);
  });
});

describe('engine errors that get past the checks', () => {
  it('become one line without Cargo paths or debug structures', () => {
    const lance = new Error(
      'lance error: Not found: /db/tasks.lance/_versions/999.manifest, /root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/lance-table-0.20.0/src/io/commit.rs:345:28\nCaused by: …',
    );
    const e = engineError(lance, "export of table 'tasks'") as Error;
    expect(e).toBeInstanceOf(WinnowError);
    expect(e.message).toBe(
      "export of table 'tasks': lance error: Not found: /db/tasks.lance/_versions/999.manifest",
    );
    const debug = engineError(
      new Error('Invalid input: Error { kind: NotADirectory, path: "/x" }'),
      'inspect /x',
    ) as Error;
    expect(debug.message).toBe('inspect /x: Invalid input');
  });
});
