import { describe, expect, it } from 'vitest';
import type { SelectorConfig } from '../../../src/selectors/registry.ts';
import type { SelectorState } from '../../../src/selectors/types.ts';
import { build, step, zooView } from './zoo-fixture.ts';

// Every zoo method: run k steps, checkpoint through JSON text, restore into a fresh selector, and
// the next selections are identical to the uninterrupted run's.
const CONFIGS: Record<string, SelectorConfig> = {
  mopps: { type: 'mopps' },
  dots: { type: 'dots', params: { referenceSize: 6, every: 3, attentionTemperature: 0.5 } },
  lilo: { type: 'lilo' },
  adarft: { type: 'adarft', params: { feature: 'level', eta: 0.2 } },
  plr: { type: 'plr' },
  sec: { type: 'sec', params: { category: 'level' } },
  dump: { type: 'dump', params: { window: 5 } },
  vcrl: { type: 'vcrl', params: { warmupSteps: 3, bankSize: 5 } },
  pcl: { type: 'pcl', params: { candidates: 3 } },
};

describe('zoo selectors resume exactly', () => {
  for (const [name, config] of Object.entries(CONFIGS)) {
    it(`${name}: 7 steps, checkpoint, 6 more steps identical`, () => {
      const a = build(config);
      for (let t = 0; t < 7; t++) step(a, t);
      const saved = JSON.parse(JSON.stringify(a.state())) as SelectorState;
      const after: string[][] = [];
      for (let t = 7; t < 13; t++) after.push(step(a, t));
      const b = build(config);
      b.load(saved);
      const resumed: string[][] = [];
      for (let t = 7; t < 13; t++) resumed.push(step(b, t));
      expect(resumed).toEqual(after);
      expect(b.report()).toEqual(a.report());
      // Every batch is distinct and has the asked size.
      for (const ids of after) expect(new Set(ids).size).toBe(8);
    });
  }

  it('a state of another method or another task list is refused', () => {
    const a = build(CONFIGS['mopps']!);
    step(a, 0);
    expect(() => build(CONFIGS['lilo']!).load(a.state())).toThrow(/mopps|type/);
    expect(() => build(CONFIGS['mopps']!, zooView(59)).load(a.state())).toThrow();
  });
});
