import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from './errors.ts';

// Apart from config.ts (validation) so that code which only validates — the pipeline workers
// building their chain — does not load the YAML parser (~70 modules per worker start).

/** Read and parse a YAML (or JSON) config file; syntax errors name the file, line and column. */
export function readYamlFile(file: string): unknown {
  const abs = resolve(file);
  let text: string;
  try {
    if (statSync(abs).isDirectory())
      throw new ConfigError({ path: '', file: abs, message: 'is a directory, expected a YAML file' });
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError({ path: '', file: abs, message: `cannot read config: ${(err as Error).message}` });
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const pos = e.linePos?.[0];
    throw new ConfigError({
      path: pos ? `line ${pos.line}, column ${pos.col}` : '',
      file: abs,
      message: `invalid YAML: ${e.message.split('\n')[0]}`,
    });
  }
  return doc.toJS({ maxAliasCount: 100 });
}
