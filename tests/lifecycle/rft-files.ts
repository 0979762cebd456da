import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from '../helpers/cli.ts';

/** A shipped pipeline as an object, with its relative paths made absolute (so a copy runs from a temp folder). */
export function shippedPipeline(name: string): Record<string, unknown> {
  const text = readFileSync(join(REPO_ROOT, 'pipelines', name), 'utf8').replaceAll(
    '../datasets/',
    `${join(REPO_ROOT, 'datasets')}/`,
  );
  const c = parse(text) as Record<string, unknown>;
  delete c.runsDir;
  return c;
}

export function writeYaml(file: string, value: unknown): string {
  writeFileSync(file, stringify(value));
  return file;
}

/** SHA-256 of every file under `dir` (path → hash), to prove a failed start changed nothing. */
export function treeHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}
