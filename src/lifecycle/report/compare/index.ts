// Run comparison: the data model (loadRunComparison → RunComparison, validated by
// runComparisonSchema), the offline page `winnow compare` writes, and the pieces the Studio reuses.
export { COMPARISON_DATA_ID, renderComparisonHtml } from './compare-html.ts';
export { comparisonFigure, type FigureData, type FigureLib, RUN_COLORS } from './comparison-figure.ts';
export { diffRunConfigs } from './config-diff-runs.ts';
export { KNOWN_METRICS, metricInfo, WANTED_METRICS } from './metric-catalog.ts';
export {
  type KnownRunStatus,
  type LoadComparisonOptions,
  loadRunComparison,
} from './run-comparison.ts';
export * from './run-comparison-schema.ts';
export { type RunFolder, RunFolderError, readRunFolder } from './run-folder.ts';
export { type RecordedRun, resolveRunRefs, runIdsIn } from './run-refs.ts';
