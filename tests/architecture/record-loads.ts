// Preloaded with `node --import ./tests/architecture/record-loads.ts …`: records the URL of every
// module the process loads (resolve hook, in-thread) and, at exit, writes them one per line to the
// file named by WINNOW_LOADS_FILE. The architecture tests use it to see what an import pulls in.
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.WINNOW_LOADS_FILE;
const urls = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    urls.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => {
  if (out) writeFileSync(out, [...urls].join('\n'));
});
