import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.ts';

// The project's own Node 22 (registerHooks needs 22.15+), else the one running the tests.
const PROJECT_NODE = join(REPO_ROOT, 'node_modules', '.bin', 'node');
const NODE = existsSync(PROJECT_NODE) ? PROJECT_NODE : process.execPath;

// Runs in a fresh process: records every URL the module graph resolves to, then imports the target.
const CHILD = `
import { registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';
const urls = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    const r = nextResolve(specifier, context);
    urls.push(r.url);
    return r;
  },
});
try {
  const target = process.argv[1];
  // The package's own name goes through package.json "exports" (a package may import itself by name).
  await import(target.startsWith('@winnow-rft/') ? target : pathToFileURL(target).href);
  console.log(JSON.stringify({ ok: true, urls }));
} catch (err) {
  console.log(JSON.stringify({ ok: false, error: String(err && err.message || err), urls }));
}
`;

interface Loaded {
  ok: boolean;
  error?: string;
  urls: string[];
}

function loadedBy(target: string): Loaded {
  const arg = target.startsWith('@winnow-rft/') ? target : join(REPO_ROOT, target);
  // --conditions=winnow-source: the package name maps to the .ts sources (no build), see package.json.
  const r = spawnSync(NODE, ['--conditions=winnow-source', '--input-type=module', '-e', CHILD, arg], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.status !== 0 || !last.startsWith('{')) {
    throw new Error(`child for ${target} exited ${r.status}: ${r.stderr.slice(-2000)}`);
  }
  return JSON.parse(last) as Loaded;
}

const tensorflow = (l: Loaded) => l.urls.filter((u) => u.includes('@tensorflow'));

describe('the core import loads no TensorFlow', () => {
  it("import '@winnow-rft/winnow' resolves many modules, none of them under @tensorflow", () => {
    const l = loadedBy('@winnow-rft/winnow');
    expect(l.error).toBeUndefined();
    expect(l.ok).toBe(true);
    // The hook really saw the graph: the core pulls in LanceDB, Arrow, zod and our own modules.
    expect(l.urls.some((u) => u.includes('@lancedb/lancedb'))).toBe(true);
    expect(l.urls.some((u) => u.endsWith('/src/core/index.ts'))).toBe(true);
    expect(tensorflow(l)).toEqual([]);
  });

  it('the TF-free tiny pieces (schemas, registry entries) load no TensorFlow either', () => {
    for (const file of [
      'src/tiny/config.ts',
      'src/tiny/pg-config.ts',
      'src/tiny/backend-name.ts',
      'src/tiny/tiny-model.ts',
      'src/tiny/policy-gradient-entry.ts',
      'src/tiny/dpo-config.ts',
      'src/tiny/dpo-entry.ts',
      'src/core/preference-pairs.ts',
    ]) {
      const l = loadedBy(file);
      expect({ file, ok: l.ok, error: l.error }).toEqual({ file, ok: true, error: undefined });
      expect({ file, tf: tensorflow(l) }).toEqual({ file, tf: [] });
    }
  });

  it("positive control: import '@winnow-rft/winnow/tiny' does load @tensorflow/tfjs", () => {
    const l = loadedBy('@winnow-rft/winnow/tiny');
    expect(l.error).toBeUndefined();
    expect(l.ok).toBe(true);
    expect(l.urls.some((u) => u.endsWith('/src/tiny/index.ts'))).toBe(true);
    expect(tensorflow(l).some((u) => u.includes('/node_modules/@tensorflow/tfjs/'))).toBe(true);
  });
});
