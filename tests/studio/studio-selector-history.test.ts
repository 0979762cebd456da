import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotsSelector } from '../../src/selectors/bots.ts';
import { encodeArray } from '../../src/selectors/state-codec.ts';
import { digestIds, taskViewFromTasks } from '../../src/selectors/task-view.ts';
import { SelectorStateStore } from '../../src/store/selector-state-store.ts';
import type { StudioServer } from '../../src/studio/studio-server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, makeStudioDb, startFixtureStudio, studioTasks } from './fixture.ts';

type Row = Record<string, unknown>;

/**
 * Task detail charts the selector's own estimate of a task over the steps its run saved selector
 * states: fifo-1 saved real BOTS states at steps 1 and 2; prio-1 pass-rate states (succ/trials) at
 * step 1 and at step 2 over another order of the same ids (descending: matches no order it tries).
 */
describe('studio task detail: the selector’s estimate over saved steps', () => {
  const dir = tempDir('winnow-studio-selector-');
  let server: StudioServer;
  let step2Mean = 0;
  beforeAll(async () => {
    const places = await makeStudioDb(dir);
    const tasks = studioTasks();
    const store = await SelectorStateStore.open(places.db);
    const bots = new BotsSelector(1);
    bots.init(taskViewFromTasks(tasks));
    bots.feedback([{ taskId: 't05', rewards: [0, 1, 0, 0] }]);
    await store.put({
      runId: 'fifo-1',
      step: 1,
      selector: 'bots',
      state: JSON.stringify(bots.state()),
      createdAt: 1,
    });
    bots.feedback([{ taskId: 't05', rewards: [1, 1, 1, 1] }]);
    const post = bots.posterior();
    step2Mean = post.alpha[5]! / (post.alpha[5]! + post.beta[5]!);
    await store.put({
      runId: 'fifo-1',
      step: 2,
      selector: 'bots',
      state: JSON.stringify(bots.state()),
      createdAt: 2,
    });
    // Task i succeeded i mod 4 times out of 4 trials.
    const passRate = (ids: string[]) => ({
      type: 'pass_rate',
      version: 1,
      n: 60,
      digest: digestIds(ids),
      seed: 1,
      totals: bots.report(),
      data: {
        succ: encodeArray(Float64Array.from({ length: 60 }, (_, i) => i % 4)),
        trials: encodeArray(new Float64Array(60).fill(4)),
      },
    });
    const ids = tasks.map((t) => t.id);
    for (const [step, order] of [
      [1, ids],
      [2, [...ids].reverse()],
    ] as const)
      await store.put({
        runId: 'prio-1',
        step,
        selector: 'pass_rate',
        state: JSON.stringify(passRate([...order])),
        createdAt: 3,
      });
    server = await startFixtureStudio(dir, places);
  }, 60_000);
  afterAll(() => server?.close());

  it('reads the BOTS posterior mean α/(α+β) of the task at each saved step', async () => {
    const r = await call(server.url, '/api/task?table=tasks&id=t05');
    expect(r.status).toBe(200);
    const runs = r.body.runs as Row[];
    const fifo = runs.find((x) => x.runId === 'fifo-1')!;
    // Step 1: Beta(1, 1) plus m = 16 rollouts' worth of a 0.25 mean reward: Beta(5, 13).
    expect(fifo.selector).toEqual({
      selector: 'bots',
      estimate: 'posterior mean α/(α+β)',
      points: [
        { step: 1, value: 5 / 18 },
        { step: 2, value: step2Mean },
      ],
      note: null,
    });
    expect(step2Mean).toBeGreaterThan(5 / 18);
    // No rollouts of t05 in the buffer: the history from the buffer is empty, the estimate is not.
    expect(fifo.history).toEqual([]);
  });

  it('reads succ/trials of a pass-rate state; a state whose task list matches no order of the table gets a note', async () => {
    const r = await call(server.url, '/api/task?table=tasks&id=t01');
    const p = (r.body.runs as Row[]).find((x) => x.runId === 'prio-1')!;
    expect(p.selector).toEqual({
      selector: 'pass_rate',
      estimate: 'observed pass rate succ/trials',
      points: [{ step: 1, value: 0.25 }],
      note: "the task list of the state at step 2 (60 tasks) matches no order of this table's ids",
    });
  });
});
