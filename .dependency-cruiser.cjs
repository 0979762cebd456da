// The layer rule (docs/architecture.md): which src/ folder may import which, written down once.
// `npm test` checks it (tests/architecture/layers.test.ts runs dependency-cruiser with this file);
// by hand: `npx depcruise src bench bin --config .dependency-cruiser.cjs`.
//
// A folder may import its own modules and any folder in a LOWER layer, never one in its own layer
// or above. The rule covers every kind of import: static, dynamic (`await import()`) and type-only
// (a type import upward still ties a lower layer to a higher one's code). Cycles are treated
// apart: a cycle of runtime imports is an error; a cycle that only closes through type-only
// imports loads nothing twice, so it is reported as a warning.

/** Bottom to top. */
const LAYERS = [
  ['core'], // shared vocabulary: config, errors, tasks, experiences, ids, registries
  ['verify', 'io', 'models'], // answer checking, readers and writers, model calls
  ['agents'], // tool environments and episodes
  ['operators'], // task and experience operators
  ['store'], // LanceDB tables other than the experience buffer, and the Arrow/Lance plumbing they share
  ['buffer', 'pipeline-workers', 'engine', 'selectors'], // the experience buffer, operator workers, the column engine, task selection
  ['explorer', 'export'], // rollouts and rewards; export formats
  ['trainer'], // trainers (export, external)
  ['tiny'], // the built-in tiny policy and its trainers: a plug-in over trainer/ and explorer/
  ['lifecycle'], // task pipelines, the RFT run, reports
  ['scale', 'recipes', 'serve', 'inspect'], // scale-out, Data-Juicer recipes, the rollout server, read-only table views
  ['studio'], // the web UI
  ['cli'], // commands
];

const folders = LAYERS.flat();
const alternation = (names) => `(${names.join('|')})`;

/** One rule per layer: its folders may not import a folder of the same layer or above (other than themselves). */
const layerRules = LAYERS.flatMap((layer, i) => {
  const notBelow = LAYERS.slice(i).flat();
  return layer.map((folder) => ({
    name: `layer:${folder}`,
    comment: `src/${folder}/ may import only folders below its layer (docs/architecture.md)`,
    severity: 'error',
    from: { path: `^src/${folder}/` },
    to: { path: `^src/${alternation(notBelow.filter((f) => f !== folder))}/` },
  }));
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'layer:known-folder',
      comment: 'every src/ folder has a place in LAYERS (.dependency-cruiser.cjs); add a new one there',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/[^/]+/', pathNot: `^src/${alternation(folders)}/` },
    },
    {
      name: 'library-entry',
      comment:
        "src/index.ts ('@winnow-rft/winnow') loads no CLI, Studio or bench module; runCli reaches the CLI by a dynamic import when called",
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^(src/(cli|studio)/|bench/)', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'no-library-import-of-bench',
      comment: 'bench/ registers itself from outside: only the CLI command table loads it, lazily (src/cli/commands.ts)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/commands\\.ts$' },
      to: { path: '^bench/' },
    },
    {
      name: 'bench-lazily',
      comment: 'the CLI loads bench/ only by a dynamic import, when `winnow bench` runs',
      severity: 'error',
      from: { path: '^src/cli/commands\\.ts$' },
      to: { path: '^bench/', dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'no-runtime-cycle',
      comment: 'a cycle of runtime imports: modules that load each other (break it with a callback or a types-only module)',
      severity: 'error',
      from: { path: '^(src|bench|bin)/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'type-cycle',
      comment: 'a cycle that closes only through type-only imports (nothing loads twice); move the shared types to a types-only module',
      severity: 'warn',
      from: { path: '^(src|bench|bin)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(src/studio/static|dist)/' },
    // Type-only imports count (they are marked `type-only`), so the layer rule sees them too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};

