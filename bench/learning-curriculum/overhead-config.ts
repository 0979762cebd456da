// `bench curriculum --overhead-tasks N` times the curriculum's selector configs on the simulator's
// pool, whose columns differ from the curriculum's: feature regressors the simulated tasks lack
// (shared_ability's `features`: digits, carries, …) are replaced by the simulator's `level`, so the
// timed model has the same number of regressors.
import type { SelectorConfig } from '../../src/selectors/registry.ts';
import type { SelectorTaskView } from '../../src/selectors/types.ts';

export function forSimulatedPool(config: SelectorConfig, view: SelectorTaskView): SelectorConfig {
  const params = (config as { params?: Record<string, unknown> }).params;
  const features = params?.['features'];
  if (!Array.isArray(features) || features.every((f) => view.features[f as string])) return config;
  const fallback = Object.keys(view.features).includes('level') ? 'level' : Object.keys(view.features)[0];
  const mapped = features
    .map((f) => (view.features[f as string] ? f : fallback))
    .filter((f) => f !== undefined);
  return { ...config, params: { ...params, features: mapped } } as SelectorConfig;
}
