// Winnow's public API: re-exports, and `runCli`, which loads the CLI only when called (importing
// the library loads no CLI, Studio or bench module; docs/architecture.md). See docs/ for each part.
export * from './agents/index.ts';
export * from './buffer/index.ts';
export * from './core/index.ts';
export * from './explorer/index.ts';
export {
  EXPORT_FORMAT_NAMES,
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportOptions,
  ExportOptionsSchema,
  exportFormatRegistry,
} from './export/index.ts';
export * from './io/index.ts';
export * from './lifecycle/index.ts';
export * from './models/index.ts';
export * from './operators/index.ts';
export * from './selectors/index.ts';
export { type ServeRun, type StartServeOptions, startServe } from './serve/index.ts';
export { dpoTrainer } from './tiny/dpo-entry.ts';
export { policyGradientTrainer } from './tiny/policy-gradient-entry.ts';
export { registerTinyParts } from './tiny/register.ts';
export { tinyModel } from './tiny/tiny-model.ts';
export * from './trainer/index.ts';
export { type MathVerdict, type VerdictReason, type VerifyOptions, verifyMath } from './verify/index.ts';

/** Runs the `winnow` command line with `argv` (without `node winnow`) and resolves to its exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const { main } = await import('./cli/main.ts');
  return main(argv);
}
