import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftRaw } from '../helpers/rft.ts';

type Json = Record<string, unknown>;

/**
 * `smallRftConfig` made standalone: dataset and model paths absolute, the database and runs folder
 * inside `dir` (`runDir` is where the first run of `name` lives), so the YAML can live anywhere. `edit` changes the plain object before it is written.
 */
export function writeRftYaml(
  dir: string,
  name: string,
  overrides: Json = {},
  edit: (c: Json) => void = () => undefined,
): { file: string; db: string; runDir: string } {
  const c = JSON.parse(JSON.stringify(smallRftRaw(name, overrides))) as Json & {
    tasks: Json;
    heldout?: { source: Json };
    explorer: { model: { params?: Json } };
  };
  const abs = (p: unknown) => join(REPO_ROOT, String(p));
  if (typeof c.tasks.path === 'string') c.tasks.path = abs(c.tasks.path);
  if (c.heldout && typeof c.heldout.source.path === 'string')
    c.heldout.source.path = abs(c.heldout.source.path);
  const model = c.explorer.model.params;
  if (model && typeof model.path === 'string') model.path = abs(model.path);
  const db = join(dir, `${name}-db`);
  // Every run gets its own folder under runsDir: the first run of `name` is `<name>-1`.
  const runsDir = join(dir, `${name}-runs`);
  const runDir = join(runsDir, `${name}-1`);
  c.db = db;
  c.runsDir = runsDir;
  edit(c);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(c));
  return { file, db, runDir };
}
