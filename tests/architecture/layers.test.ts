import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

// The layer rule (.dependency-cruiser.cjs, docs/architecture.md), run through dependency-cruiser's
// API: on the repository it must find no error; on small planted trees it must catch each kind of
// violation it exists for.

const ROOT = join(import.meta.dirname, '..', '..');
const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
  forbidden: IForbiddenRuleType[];
};

async function cruiseTree(baseDir: string, roots: string[]): Promise<ICruiseResult> {
  const result = await cruise(roots, {
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(src/studio/static|dist)/' },
    moduleSystems: ['es6'],
  });
  return result.output as ICruiseResult;
}

/** Each violation as `severity rule: from → to`, sorted. */
function violationsOf(result: ICruiseResult): string[] {
  return result.summary.violations
    .map((v) => `${v.rule.severity} ${v.rule.name}: ${v.from} → ${v.to}`)
    .sort((a, b) => a.localeCompare(b));
}

const scratch = mkdtempSync(join(tmpdir(), 'winnow-layers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A tree of .ts files under a fresh folder; returns that folder. */
function plant(name: string, files: Record<string, string>): string {
  const dir = join(scratch, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('the layer rule', () => {
  it('passes on src/, bench/ and bin/: no upward import, no runtime cycle, the library entry loads no CLI', async () => {
    const result = await cruiseTree(ROOT, ['src', 'bench', 'bin']);
    const errors = violationsOf(result).filter((v) => v.startsWith('error'));
    expect(errors).toEqual([]);
    expect(result.summary.error).toBe(0);
    // It did look at the whole tree (not an empty cruise that passes by finding nothing).
    expect(result.summary.totalCruised).toBeGreaterThan(600);
  });

  it('fails on a library folder importing the CLI, bench or Studio, statically, dynamically or for types', async () => {
    const dir = plant('upward', {
      'src/cli/main.ts': 'export const main = 1;\n',
      'src/studio/server.ts': 'export const server = 1;\n',
      'bench/ingest.ts': 'export const ingest = 1;\n',
      'src/core/a.ts': "import { main } from '../cli/main.ts';\nexport const a = main;\n",
      'src/buffer/b.ts': "export const b = async () => (await import('../studio/server.ts')).server;\n",
      'src/io/c.ts': "import type { ingest } from '../../bench/ingest.ts';\nexport type C = typeof ingest;\n",
    });
    const result = await cruiseTree(dir, ['src', 'bench']);
    expect(violationsOf(result)).toEqual([
      'error layer:buffer: src/buffer/b.ts → src/studio/server.ts',
      'error layer:core: src/core/a.ts → src/cli/main.ts',
      'error no-library-import-of-bench: src/io/c.ts → bench/ingest.ts',
    ]);
  });

  it('fails on a lower folder importing a higher one, and on two folders of one layer importing each other', async () => {
    const dir = plant('sideways', {
      'src/selectors/pick.ts':
        "import { explore } from '../explorer/explore.ts';\nexport const pick = explore;\n",
      'src/explorer/explore.ts': 'export const explore = 1;\n',
      'src/buffer/store.ts': "import { w } from '../pipeline-workers/w.ts';\nexport const store = w;\n",
      'src/pipeline-workers/w.ts': 'export const w = 1;\n',
      // downward: allowed
      'src/lifecycle/run.ts': "import { pick } from '../selectors/pick.ts';\nexport const run = pick;\n",
    });
    const result = await cruiseTree(dir, ['src']);
    expect(violationsOf(result)).toEqual([
      'error layer:buffer: src/buffer/store.ts → src/pipeline-workers/w.ts',
      'error layer:selectors: src/selectors/pick.ts → src/explorer/explore.ts',
    ]);
  });

  it('fails on a runtime cycle; a cycle closed only by type imports is a warning', async () => {
    const dir = plant('cycles', {
      'src/core/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
      'src/core/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
      'src/core/t1.ts': "import type { T2 } from './t2.ts';\nexport interface T1 { next?: T2 }\n",
      'src/core/t2.ts': "import type { T1 } from './t1.ts';\nexport interface T2 { back?: T1 }\n",
    });
    const result = await cruiseTree(dir, ['src']);
    const found = violationsOf(result);
    // dependency-cruiser names each cycle once, at the first edge it walked; the runtime cycle also
    // counts as a cycle for the warning rule.
    expect(found).toEqual([
      'error no-runtime-cycle: src/core/a.ts → src/core/b.ts',
      'warn type-cycle: src/core/a.ts → src/core/b.ts',
      'warn type-cycle: src/core/t1.ts → src/core/t2.ts',
    ]);
  });

  it('fails on src/index.ts importing the CLI statically (a dynamic import in runCli is the allowed way)', async () => {
    const dir = plant('entry', {
      'src/cli/main.ts': 'export const main = async () => 0;\n',
      'src/index.ts': "export { main } from './cli/main.ts';\n",
    });
    const lazy = plant('entry-lazy', {
      'src/cli/main.ts': 'export const main = async () => 0;\n',
      'src/index.ts': "export const runCli = async () => (await import('./cli/main.ts')).main();\n",
    });
    expect(violationsOf(await cruiseTree(dir, ['src']))).toEqual([
      'error library-entry: src/index.ts → src/cli/main.ts',
    ]);
    expect(violationsOf(await cruiseTree(lazy, ['src']))).toEqual([]);
  });

  it('fails on the CLI loading bench/ other than lazily from its command table, and on a folder with no layer', async () => {
    const dir = plant('bench-and-new', {
      'bench/command.ts': 'export const benchCommand = 1;\n',
      'src/cli/commands.ts':
        "import { benchCommand } from '../../bench/command.ts';\nexport const c = benchCommand;\nexport const lazy = () => import('../../bench/command.ts');\n",
      'src/cli/run-command.ts': "export const r = () => import('../../bench/command.ts');\n",
      'src/widgets/w.ts': 'export const w = 1;\n',
      'src/core/uses-widget.ts': "import { w } from '../widgets/w.ts';\nexport const u = w;\n",
    });
    expect(violationsOf(await cruiseTree(dir, ['src', 'bench']))).toEqual([
      'error bench-lazily: src/cli/commands.ts → bench/command.ts',
      'error layer:known-folder: src/core/uses-widget.ts → src/widgets/w.ts',
      'error no-library-import-of-bench: src/cli/run-command.ts → bench/command.ts',
    ]);
  });
});
