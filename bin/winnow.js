#!/usr/bin/env node
// The CLI entry. Node >= 22.18 runs TypeScript sources directly (type stripping),
// so the package ships its sources and needs no build step.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(
    `winnow needs Node >= 22.18 (found ${process.versions.node}); run it through npm (npx winnow, npm run …), which uses the Node pinned in devDependencies\n`,
  );
  process.exit(2);
}
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
