import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../src/core/errors.ts';
import { BotsSelector } from '../../src/selectors/bots.ts';
import {
  buildSelector,
  createSelector,
  selectorDefinitions,
  selectorRegistry,
} from '../../src/selectors/registry.ts';
import { tinyView } from './fixtures/tiny.ts';

describe('selector registry', () => {
  it('names every built-in selector', () => {
    expect(selectorDefinitions.map((d) => d.name)).toEqual([
      'sequential',
      'shuffle',
      'random',
      'offline_easy2hard',
      'pass_rate',
      'bots',
      'shared_ability',
      'headroom',
      'progress',
    ]);
    expect(selectorRegistry().names()).toContain('mixed');
  });

  it('builds a selector from YAML with defaults filled in', () => {
    const config = parseYaml('selector:\n  type: bots\n  params:\n    lambda: 0.2\n    tau: 0.5\n').selector;
    const sel = createSelector(config, tinyView(), 1) as BotsSelector;
    expect(sel).toBeInstanceOf(BotsSelector);
    expect(sel.params.lambda).toBe(0.2);
    expect(sel.params.tau).toBe(0.5);
    expect(sel.params.m).toBe(16);
    expect(sel.params.rho).toBe(0.1);
    expect(sel.params.target).toBe(0.5);
  });

  it('an unknown parameter names its config path and the closest known one', () => {
    let err: unknown;
    try {
      buildSelector({ type: 'bots', params: { lamda: 0.2 } }, 1, 'run.selector');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).path).toBe('run.selector.params.lamda');
    expect((err as Error).message).toMatch(/did you mean .*'lambda'/);
  });

  it('a bad value names its path; an unknown type suggests close names', () => {
    expect(() => buildSelector({ type: 'bots', params: { rho: 2 } }, 1)).toThrow(/selector\.params\.rho/);
    expect(() => buildSelector({ type: 'shufle' }, 1)).toThrow(/did you mean 'shuffle'/);
    expect(() => buildSelector({ type: 'offline_easy2hard' }, 1)).toThrow(/give either keys/);
  });

  it('offline_easy2hard names the missing column', () => {
    expect(() =>
      createSelector({ type: 'offline_easy2hard', params: { feature: 'difficulty' } }, tinyView(), 1),
    ).toThrow(/no feature column 'difficulty'/);
  });
});
