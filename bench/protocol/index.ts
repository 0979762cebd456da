// The shared benchmark protocol (issue 41): `bench curriculum`, `bench selection` and `bench replay`
// turn their runs into BudgetCurves and read every table through evaluateComparison.
export * from './curve.ts';
export * from './evaluate.ts';
export * from './format.ts';
export * from './information.ts';
export * from './interval.ts';
export * from './method.ts';
export * from './run.ts';
export * from './tuning.ts';
