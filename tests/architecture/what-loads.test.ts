import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { scaled } from '../helpers/slowdown.ts';

// What a fresh process loads, recorded by a resolve hook (record-loads.ts): importing the library
// loads no CLI, Studio or bench module; each CLI command loads only what it needs.

const ROOT = join(import.meta.dirname, '..', '..');
const RECORDER = join(import.meta.dirname, 'record-loads.ts');
const scratch = mkdtempSync(join(tmpdir(), 'winnow-loads-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let runs = 0;
/** Runs node with `args` (the recorder preloaded); the URLs of every module it loaded, relative to the repository. */
function loadsOf(args: string[]): {
  status: number | null;
  stdout: string;
  stderr: string;
  loaded: string[];
} {
  const file = join(scratch, `loads-${runs++}.txt`);
  const r = spawnSync(process.execPath, ['--import', RECORDER, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, WINNOW_LOADS_FILE: file },
    timeout: scaled(120_000),
  });
  const root = `${pathToFileURL(ROOT).href}/`;
  const loaded = readFileSync(file, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith(root))
    .map((u) => u.slice(root.length));
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, loaded };
}

const under = (loaded: readonly string[], ...prefixes: string[]) =>
  loaded.filter((p) => prefixes.some((x) => p.startsWith(x)));

describe("import '@winnow-rft/winnow'", () => {
  it('loads the library (src/index.ts and its folders) and no module of src/cli, src/studio or bench/', () => {
    const script = `
      const m = await import('@winnow-rft/winnow');
      console.log(typeof m.runCli, typeof m.TaskStore, typeof m.runRftLoop);
    `;
    const r = loadsOf(['--conditions=winnow-source', '--input-type=module', '-e', script]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('function function function');
    expect(r.loaded).toContain('src/index.ts');
    expect(under(r.loaded, 'src/lifecycle/', 'src/buffer/', 'src/selectors/').length).toBeGreaterThan(50);
    expect(under(r.loaded, 'src/cli/', 'src/studio/', 'bench/')).toEqual([]);
  });

  it('runCli loads the CLI when it is called, and only then', () => {
    const script = `
      const m = await import('@winnow-rft/winnow');
      process.exitCode = await m.runCli(['--version']);
    `;
    const r = loadsOf(['--conditions=winnow-source', '--input-type=module', '-e', script]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^winnow \d+\.\d+\.\d+/);
    expect(r.loaded).toContain('src/cli/main.ts');
    expect(under(r.loaded, 'bench/', 'src/studio/')).toEqual([]);
  });
});

describe('the winnow CLI loads each command when it runs', () => {
  it('--version and `runs --help` load no command code, no table engine and no benchmark', () => {
    for (const args of [['--version'], ['runs', '--help']]) {
      const r = loadsOf(['bin/winnow.js', ...args]);
      expect(r.status, r.stderr).toBe(0);
      expect(under(r.loaded, 'src/cli/').filter((p) => p.endsWith('-command.ts'))).toEqual([]);
      expect(under(r.loaded, 'bench/', 'src/lifecycle/', 'src/buffer/', 'node_modules/')).toEqual([]);
    }
  });

  it('--help loads every spec (src/cli/specs/) and the benchmarks’ specs, but no command and no benchmark', () => {
    const r = loadsOf(['bin/winnow.js', '--help']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('winnow bench <name> [options]');
    const specFiles = readdirSync('src/cli/specs').filter((f) => f.endsWith('.ts'));
    expect(under(r.loaded, 'src/cli/specs/')).toHaveLength(specFiles.length);
    expect(under(r.loaded, 'src/cli/').filter((p) => p.endsWith('-command.ts'))).toEqual([]);
    expect(r.loaded).toContain('bench/command.ts');
    expect(
      under(r.loaded, 'bench/').filter((p) =>
        /bench\/(ingest|buffer|replay|learning|judge|ops)\.ts$/.test(p),
      ),
    ).toEqual([]);
    expect(under(r.loaded, 'src/lifecycle/', 'node_modules/@lancedb/')).toEqual([]);
  });

  it('`winnow runs` loads the runs command and the run views, not the RFT run, the Studio or any benchmark', () => {
    const db = join(scratch, 'empty-db');
    const r = loadsOf(['bin/winnow.js', 'runs', '--db', db]);
    // An empty or missing database is a usage answer, not a crash; what matters here is what loaded.
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.loaded).toContain('src/cli/runs-command.ts');
    expect(r.loaded).toContain('src/inspect/run-views.ts');
    expect(under(r.loaded, 'src/cli/').filter((p) => p.endsWith('-command.ts'))).toEqual([
      'src/cli/runs-command.ts',
    ]);
    expect(
      under(
        r.loaded,
        'bench/',
        'src/studio/',
        'src/lifecycle/run/rft-',
        'src/lifecycle/run/run-loop',
        'src/explorer/',
      ),
    ).toEqual([]);
  });
});
