// Builds what an installed copy runs: `npm run build` (and `prepack`, so `npm pack` ships it).
// Node refuses type stripping under node_modules, so the package carries compiled JavaScript.
// dist/ mirrors the repository's layout (dist/src, dist/bench, dist/datasets/arithmetic): the
// sources find their data with paths relative to their own file (`new URL('../../datasets/…',
// import.meta.url)`), and those paths then hold in dist/ exactly as they do in the repository.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
/** Data the library itself reads at run time (arithmetic tasks, the tiny policy's warm start, stopword lists, perplexity_filter's language models, the Studio's front end). */
const ASSETS = ['datasets/arithmetic', 'datasets/wordlists', 'datasets/lm', 'src/studio/static'];

// A clean folder, so a renamed or deleted source never ships as a stale .js.
rmSync(DIST, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], {
  cwd: ROOT,
  stdio: 'inherit',
});
if (r.status !== 0) {
  process.stderr.write(`build: tsc -p tsconfig.build.json failed (exit ${r.status}); nothing to pack\n`);
  process.exit(1);
}

for (const asset of ASSETS) {
  const from = join(ROOT, asset);
  if (!existsSync(from)) {
    process.stderr.write(`build: ${asset} is missing; the installed package needs it\n`);
    process.exit(1);
  }
  cpSync(from, join(DIST, asset), { recursive: true });
}
process.stdout.write(`build: dist/ written (src, bench, ${ASSETS.join(', ')})\n`);
