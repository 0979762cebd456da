import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-learning-');

describe('the RFT loop learns on a CPU (through the CLI)', () => {
  for (const seed of [1, 2, 3]) {
    it(`seed ${seed}: held-out accuracy after 60 steps beats the warm start by ≥ 5 points`, () => {
      const r = winnow([
        'run',
        'pipelines/arithmetic-grpo.yaml',
        '--steps',
        '60',
        '--seed',
        String(seed),
        '--db',
        join(dir, `db-${seed}`),
        '--run-dir',
        join(dir, `run-${seed}`),
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as {
        initialAccuracy: number;
        finalAccuracy: number;
        steps: number;
        counters: { rollouts: number };
      };
      expect(report.steps).toBe(60);
      expect(report.counters.rollouts).toBe(60 * 64 * 8);
      expect(report.initialAccuracy).toBeCloseTo(0.333, 2);
      expect(report.finalAccuracy - report.initialAccuracy).toBeGreaterThanOrEqual(0.05);
      // The run folder holds the HTML report with its charts over steps, and one metrics line per step.
      const html = readFileSync(join(dir, `run-${seed}`, 'report.html'), 'utf8');
      for (const title of [
        'Mean reward of rollouts',
        'Held-out accuracy',
        'Effective task ratio',
        'Difficulty of selected tasks',
        'Throughput',
      ]) {
        expect(html).toContain(title);
      }
      expect(html.match(/<svg /g)?.length).toBe(6);
      expect(
        readFileSync(join(dir, `run-${seed}`, 'metrics.jsonl'), 'utf8')
          .trim()
          .split('\n'),
      ).toHaveLength(60);
    });
  }
});
