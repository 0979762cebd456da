import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** This package's version, from the nearest package.json above this file (sources or dist/). */
export function packageVersion(from: string = import.meta.dirname): string {
  for (let dir = from; dirname(dir) !== dir; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name?.endsWith('/winnow') && pkg.version) return pkg.version;
  }
  return 'unknown';
}
