import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareRft } from '../../../src/lifecycle/run/rft-build.ts';
import { RftConfigSchema } from '../../../src/lifecycle/run/rft-config.ts';
import { roundsSelector } from '../../../src/selectors/stages/staged-selector.ts';
import { smallRftRaw } from '../../helpers/rft.ts';
import { tempDir } from '../../helpers/tmp.ts';

const dir = tempDir('winnow-live-stages-');
const REPO = join(import.meta.dirname, '..', '..', '..');

async function prepare(runId: string, stages: unknown[]) {
  const raw = smallRftRaw(runId);
  const config = RftConfigSchema.parse({
    ...raw,
    selector: { type: 'mopps' },
    explorer: { ...(raw['explorer'] as object), stages },
  });
  return prepareRft(config, {
    baseDir: REPO,
    dbDir: join(dir, 'db'),
    runDir: join(dir, runId),
    runId,
    seed: 3,
  });
}

describe('explorer.stages in a run config', () => {
  it('greso goes in front of the configured selector; its state travels in the selector checkpoint', async () => {
    const a = await prepare('run-a', [{ type: 'greso', params: { delta: 0.02 } }]);
    const sel = a.parts.selector;
    expect(sel.type).toBe('mopps');
    const ids = sel.select(4);
    expect(new Set(ids).size).toBe(4);
    sel.feedback(ids.map((id) => ({ taskId: id, rewards: [1, 1, 1, 1] })));
    const state = JSON.parse(JSON.stringify(sel.state()));
    expect(state.data.stages.map((s: { type: string }) => s.type)).toEqual(['greso']);
    expect(state.data.stages[0].data.pEasy).toBe(0.48); // 4 of 4 groups all correct: 0.5 − 0.02
    const plain = await prepare('run-b', []);
    expect(plain.parts.selector.state().data['stages']).toBeUndefined();
  });

  it('speed and dapo_ds make a step take rounds of rollouts; a misspelt stage is refused', async () => {
    const staged = (await prepare('run-c', [{ type: 'dapo_ds' }])).parts.selector;
    expect(roundsSelector(staged)?.stages.map((s) => s.type)).toEqual(['dapo_ds']);
    expect(roundsSelector((await prepare('run-d', [{ type: 'greso' }])).parts.selector)).toBeUndefined();
    expect(() =>
      RftConfigSchema.parse({
        ...smallRftRaw('x'),
        explorer: { ...(smallRftRaw('x')['explorer'] as object), stages: ['gresso'] },
      }),
    ).toThrow();
  });
});
