import { classifyDiff } from '../../run/config-diff.ts';
import type { ConfigDiffRow } from './run-comparison-schema.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value at a dotted path (undefined when a step of it is missing). */
function valueAt(config: unknown, path: string): unknown {
  if (path === '<root>') return config;
  let v: unknown = config;
  for (const part of path.split('.')) {
    if (!isObject(v)) return undefined;
    v = v[part];
  }
  return v;
}

/**
 * The paths where the configs of several runs disagree, each with every run's value. Built from
 * config-diff.ts (the same leaves `--resume` compares), taken between the first run and each
 * other: a path where any two runs differ differs from the first run in at least one of them.
 * Where a plug-in slot names another implementation (`selector.type`), its `params` are shown too.
 */
export function diffRunConfigs(configs: readonly unknown[]): ConfigDiffRow[] {
  const [first, ...others] = configs;
  const meaning = new Set<string>();
  const harmless = new Set<string>();
  for (const other of others) {
    const d = classifyDiff(first, other);
    for (const k of d.meaning) meaning.add(k);
    for (const k of d.harmless) harmless.add(k);
  }
  const paths = new Set([...meaning, ...harmless]);
  for (const p of [...paths]) {
    if (!p.endsWith('.type')) continue;
    const params = `${p.slice(0, -'.type'.length)}.params`;
    const texts = configs.map((c) => JSON.stringify(valueAt(c, params)));
    if (new Set(texts).size > 1) {
      paths.add(params);
      if (meaning.has(p)) meaning.add(params);
    }
  }
  return [...paths].sort().map((path) => ({
    path,
    changesResults: meaning.has(path),
    values: configs.map((c) => {
      const v = valueAt(c, path);
      return v === undefined ? null : JSON.stringify(v);
    }),
  }));
}
