// Winnow's public API. Re-exports only; see docs/ for what each part does.
export * from './agents/index.ts';
export * from './buffer/index.ts';
export { main as runCli } from './cli/main.ts';
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
export * from './trainer/index.ts';
export { type MathVerdict, type VerdictReason, type VerifyOptions, verifyMath } from './verify/index.ts';
