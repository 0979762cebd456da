import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';

type Json = Record<string, unknown>;

/**
 * `smallRftConfig` made standalone: dataset and model paths absolute, the database and run folder
 * inside `dir`, so the YAML can live anywhere. `edit` changes the plain object before it is written.
 */
export function writeRftYaml(
  dir: string,
  name: string,
  overrides: Json = {},
  edit: (c: Json) => void = () => undefined,
): { file: string; db: string; runDir: string } {
  const c = JSON.parse(JSON.stringify(smallRftConfig(name, overrides))) as Json & {
    tasks: Json;
    heldout?: { source: Json };
    explorer: { model: Json };
  };
  const abs = (p: unknown) => join(REPO_ROOT, String(p));
  if (typeof c.tasks.path === 'string') c.tasks.path = abs(c.tasks.path);
  if (c.heldout && typeof c.heldout.source.path === 'string')
    c.heldout.source.path = abs(c.heldout.source.path);
  if (typeof c.explorer.model.path === 'string') c.explorer.model.path = abs(c.explorer.model.path);
  const db = join(dir, `${name}-db`);
  const runDir = join(dir, `${name}-run`);
  c.db = db;
  c.runDir = runDir;
  edit(c);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(c));
  return { file, db, runDir };
}
