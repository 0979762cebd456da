export { selectionBenchMain } from './cli.ts';
export { formatScenario, formatSelectionTable } from './format.ts';
export { ALL_SELECTORS, type BenchSelector, EXTRA_SELECTORS, LINEUP, LINEUP_NAMES } from './lineup.ts';
export * from './metrics.ts';
export { OracleSelector } from './oracle.ts';
export { formatOverheadTable, measureOverhead, type OverheadRow } from './overhead.ts';
export * from './runner.ts';
export { SCENARIO_NAMES, SCENARIOS, type SelectionScenario } from './scenarios.ts';
