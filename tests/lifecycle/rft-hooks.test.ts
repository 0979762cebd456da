import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-hooks-');
describe('RFT lifecycle hooks', () => {
  it('fires one typed event per checkpoint in order, with payloads, and records a veto with its reason', async () => {
    const events: string[] = [];
    const hooks = new Hooks<RftEvents>();
    const names = [
      'beforeSelect',
      'afterSelect',
      'afterRollout',
      'afterFeedback',
      'afterExperienceOps',
      'afterBufferWrite',
      'beforeTrainStep',
      'afterTrainStep',
      'onSync',
      'onEvaluate',
      'onCheckpoint',
    ] as const;
    for (const name of names) {
      hooks.on(name, (p: Readonly<{ step: number }>) => {
        events.push(`${p.step}:${name}`);
      });
    }
    const sizes: Record<string, number[]> = {};
    const size = (k: string, n: number) => {
      sizes[k] = [...(sizes[k] ?? []), n];
    };
    hooks.on(
      'afterSelect',
      (p) => {
        size('selected', p.rows.length);
        return { drop: [{ row: p.rows[0]!, reason: 'vetoed by the test hook' }] };
      },
      'vetoFirst',
    );
    hooks.on('afterRollout', (p) => void size('rollouts', p.rows.length));
    hooks.on('afterExperienceOps', (p) => void size('processed', p.rows.length));
    hooks.on('afterBufferWrite', (p) => void size('written', p.written));
    hooks.on('afterTrainStep', (p) => void size('version', p.version));

    const db = join(dir, 'db');
    const report = await runRft(smallRftConfig('hooks'), {
      baseDir: REPO_ROOT,
      dbDir: db,
      runDir: join(dir, 'run'),
      hooks,
    });
    const perStep = [
      'beforeSelect',
      'afterSelect',
      'afterRollout',
      'afterFeedback',
      'afterExperienceOps',
      'afterBufferWrite',
      'beforeTrainStep',
      'afterTrainStep',
      'onSync',
    ];
    expect(events).toEqual([
      '0:onEvaluate',
      ...perStep.map((e) => `1:${e}`),
      '1:onCheckpoint',
      ...perStep.map((e) => `2:${e}`),
      '2:onEvaluate',
      '2:onCheckpoint',
    ]);
    expect(sizes.selected).toEqual([4, 4]);
    expect(sizes.rollouts).toEqual([12, 12]); // 3 tasks after the veto × 4 rollouts
    expect(sizes.processed).toEqual([12, 12]);
    expect(sizes.written).toEqual([12, 12]);
    expect(sizes.version).toEqual([1, 2]);
    expect(report.steps).toBe(2);

    const vetoes = (await (await RejectedStore.open(db)).read()).filter(
      (r) => r.step === 'hook:afterSelect:vetoFirst',
    );
    expect(vetoes).toHaveLength(2);
    expect(vetoes[0]!.reason).toBe('vetoed by the test hook');
    expect(vetoes[0]!.rowId).toMatch(/^t_/);
  });
});
