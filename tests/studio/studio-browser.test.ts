import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeArray } from '../../src/selectors/state-codec.ts';
import { digestIds } from '../../src/selectors/task-view.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { SelectorStateStore } from '../../src/store/selector-state-store.ts';
import type { StudioServer } from '../../src/studio/studio-server.ts';
import { captureMain } from '../cli/capture.ts';
import { readParquetFile } from '../export/arrow-text.ts';
import { tempDir } from '../helpers/tmp.ts';
import { browserMissing, launchChromium } from './browser.ts';
import { makeStudioDb, startFixtureStudio, studioTasks } from './fixture.ts';

/**
 * The Studio in a real headless Chromium: the user's paths through the UI, each checked by what
 * the page shows and by what the database then holds. WINNOW_SCREENSHOTS=1 writes the screenshots
 * docs/studio.md shows (docs/images/studio/); normal runs write none.
 */
const missing = browserMissing();
if (missing) console.warn(`studio browser tests skipped: ${missing}`);
const SHOTS =
  process.env.WINNOW_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs/images/studio') : null;

describe.skipIf(missing !== null)('studio in Chromium', () => {
  const dir = tempDir('winnow-studio-browser-');
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let db: string;
  const TOKEN = 'browser-token-123';

  beforeAll(async () => {
    const places = await makeStudioDb(dir);
    db = places.db;
    server = await startFixtureStudio(dir, { ...places, token: TOKEN, user: 'reviewer' });
    browser = await launchChromium();
    context = browser.context;
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(10_000);
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Wait until the view for the current hash has rendered. */
  async function settled(before: string | undefined) {
    // Page code is passed as text: it runs in the browser, and this file is typed for Node.
    await page.waitForFunction(
      `document.body.dataset.ready !== undefined && document.body.dataset.ready !== ${JSON.stringify(before ?? null)}`,
    );
  }
  const ready = () => page.evaluate<string | undefined>('document.body.dataset.ready');
  async function nav(action: () => Promise<unknown>) {
    const before = await ready();
    await action();
    await settled(before);
  }
  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  };
  const ids = () =>
    page.$$eval('[data-testid=rows] tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));

  it('opens a table, filters and pages, opens a task, edits it, sees the new version, undoes', async () => {
    await page.goto(`${server.url}?token=${TOKEN}`);
    await settled(undefined);
    await shot('tables');
    await nav(() => page.click('[data-testid=table-tasks]'));
    expect((await ids()).slice(0, 3)).toEqual(['t00', 't01', 't02']);
    await page.fill('[data-testid=where]', "taskset = 'odd'");
    await nav(() => page.click('[data-testid=apply]'));
    expect((await ids()).slice(0, 3)).toEqual(['t01', 't03', 't05']);
    await page.waitForFunction(
      "document.querySelector('[data-testid=count]')?.textContent === '30 matching'",
    );
    await shot('task-browser');
    await nav(() => page.click('[data-testid=next]'));
    expect(await ids()).toEqual(['t51', 't53', 't55', 't57', 't59']);
    expect(await page.textContent('[data-testid=range]')).toBe('rows 26–30');

    await nav(() => page.click('[data-testid=open-t53]'));
    const v0 = Number((await page.textContent('[data-testid=task-version]'))!.slice(1));
    await page.fill('[data-testid=edit-prompt]', 'Compute 53 times three.');
    await page.fill('[data-testid=edit-reason]', 'make it harder');
    await nav(() => page.click('[data-testid=save]'));
    expect(await page.textContent('[data-testid=task-version]')).toBe(`v${v0 + 1}`);
    expect(await page.inputValue('[data-testid=edit-prompt]')).toBe('Compute 53 times three.');
    expect(
      await page.$$eval('[data-testid=edits] tbody tr', (trs) =>
        trs.map((tr) => tr.children[1]!.textContent),
      ),
    ).toEqual(['reviewer']);
    await shot('task-edit');
    await nav(() => page.click('[data-testid=undo-edit]'));
    expect(await page.textContent('[data-testid=task-version]')).toBe(`v${v0 + 2}`);
    expect(await page.inputValue('[data-testid=edit-prompt]')).toBe('Compute 53 times two.');
  });

  it('a stale edit from a second tab is refused with a visible message', async () => {
    const second = await context.newPage();
    await second.goto(`${server.url}#/task/tasks/t55`);
    await second.waitForSelector('[data-testid=edit-answer]');
    await nav(() => page.goto(`${server.url}#/task/tasks/t55`));
    await page.fill('[data-testid=edit-answer]', '111');
    await nav(() => page.click('[data-testid=save]'));
    await second.fill('[data-testid=edit-answer]', '222');
    await second.click('[data-testid=save]');
    const alert = await second.waitForSelector('[data-testid=error]');
    expect(await alert.textContent()).toMatch(
      /^task 't55' changed since you read it .* \(field: etag\) — reload the row/,
    );
    await second.close();
    expect(await page.inputValue('[data-testid=edit-answer]')).toBe('111');
  });

  it('compares two runs and the chart holds the runs’ values', async () => {
    await nav(() => page.goto(`${server.url}#/runs`));
    await page.check('[data-testid=pick-fifo-1]');
    await page.check('[data-testid=pick-prio-1]');
    await nav(() => page.click('[data-testid=compare]'));
    await page.waitForSelector('[data-testid=chart-accuracy] canvas');
    // The uPlot instance's own data and series: what the chart draws.
    const data = await page.evaluate<{ data: number[][]; series: { label: string }[] }>(
      '({ data: window.studioCharts.accuracy.data, series: window.studioCharts.accuracy.series.map((s) => ({ label: s.label })) })',
    );
    expect(data.series.map((s) => s.label)).toEqual(['step', 'fifo-1', 'prio-1']);
    expect(data.data[0]).toEqual([0, 1, 2, 3]);
    expect(data.data[2]![3]).toBe(0.45);
    expect(await page.textContent('[data-testid=config-diff]')).toContain('buffer.sampler.type');
    await shot('compare');
  });

  it("a running run's charts update without a reload", async () => {
    const runDir = join(dir, 'runs', 'live-1');
    mkdirSync(runDir, { recursive: true });
    const config = { name: 'live', lifecycle: { steps: 5 }, buffer: { sampler: { type: 'fifo' } } };
    writeFileSync(
      join(runDir, 'run-config.json'),
      JSON.stringify({ runId: 'live-1', configHash: 'h9', config }),
    );
    writeFileSync(join(runDir, 'metrics.jsonl'), `${JSON.stringify({ step: 1, meanReward: 0.1 })}\n`);
    await (await RunTable.open(db)).put({
      runId: 'live-1',
      kind: 'rft',
      name: 'live',
      configHash: 'h9',
      seed: 1,
      status: 'running',
      startedAt: Date.now(),
      finishedAt: 0,
      tableVersion: 1,
      summary: JSON.stringify({ runDir }),
    });
    await nav(() => page.goto(`${server.url}#/compare?run=fifo-1&run=live-1`));
    await page.waitForSelector('[data-testid=chart-meanReward] canvas');
    const steps = () => page.evaluate<number[]>('window.studioCharts.meanReward.data[0]');
    // Step 0: fifo-1 measured its held-out accuracy before its first step.
    expect(await steps()).toEqual([0, 1, 2, 3]);
    appendFileSync(join(runDir, 'metrics.jsonl'), `${JSON.stringify({ step: 4, meanReward: 0.4 })}\n`);
    await page.waitForFunction('window.studioCharts.meanReward.data[0].length === 5', undefined, {
      timeout: 8000,
    });
    expect(await page.evaluate<Array<number | null>>('window.studioCharts.meanReward.data[2]')).toEqual([
      null,
      0.1,
      null,
      null,
      0.4,
    ]);
  });

  it("a task's pass-rate chart holds the selector's own estimate at its saved steps", async () => {
    const store = await SelectorStateStore.open(db);
    const ids = studioTasks().map((t) => t.id);
    for (const [step, succ] of [
      [1, 1],
      [2, 3],
    ])
      await store.put({
        runId: 'fifo-1',
        step,
        selector: 'pass_rate',
        createdAt: step,
        state: JSON.stringify({
          type: 'pass_rate',
          version: 1,
          n: ids.length,
          digest: digestIds(ids),
          seed: 1,
          totals: {},
          data: {
            succ: encodeArray(new Float64Array(ids.length).fill(succ)),
            trials: encodeArray(new Float64Array(ids.length).fill(4)),
          },
        }),
      });
    await nav(() => page.goto(`${server.url}#/task/tasks/t01`));
    await page.waitForSelector('[data-testid="chart-fifo-1: pass rate"] canvas');
    const chart = await page.evaluate<{ data: Array<Array<number | null>>; labels: string[] }>(
      "({ data: window.studioCharts['fifo-1: pass rate'].data, labels: window.studioCharts['fifo-1: pass rate'].series.map((s) => s.label) })",
    );
    expect(chart.labels).toEqual(['step', 'mean reward', 'pass_rate: observed pass rate succ/trials']);
    // t01's rollouts in exps are all at step 1 (g1: 1, 0, 1; g3: 0.5, 0.25).
    expect(chart.data).toEqual([
      [1, 2],
      [0.55, null],
      [0.25, 0.75],
    ]);
  });

  it('shows rejected rows grouped by step and reason; an example opens its source line', async () => {
    await nav(() => page.goto(`${server.url}#/rejected/rejected`));
    const heads = await page.$$eval('[data-testid=rejected-group] > strong', (els) =>
      els.map((e) => e.textContent),
    );
    expect(heads).toEqual(['length_filter · 2', 'read:jsonl · 1']);
    await page.click('text=input.jsonl:4');
    const src = await page.waitForSelector('[data-testid=rejected-group] pre');
    expect(await src.textContent()).toContain('▶ 4: {"broken');
    await shot('rejected');
  });

  it('shows token texts; labels a preference pair and finds it in the trl-dpo export', async () => {
    await nav(() => page.goto(`${server.url}#/group/exps/g2`));
    // The token view shows each token's text (the tiny policy's vocabulary), its id on hover.
    const toks = await page.$$eval('[data-testid=response-g2-0] [data-testid=tokens] .tok', (els) =>
      els.map((e) => [e.textContent, e.getAttribute('title')]),
    );
    expect(toks).toEqual([
      ['5', 'token 7 · logprob -0.500'],
      ['6', 'token 8 · logprob -0.250'],
    ]);
    await page.selectOption('[data-testid=chosen]', 'g2-1');
    await page.selectOption('[data-testid=rejected]', 'g2-0');
    await nav(() => page.click('[data-testid=label-pair]'));
    expect(await page.textContent('[data-testid=current-label]')).toBe('labelled by reviewer: g2-1 ≻ g2-0');
    await shot('group');
    const out = join(dir, 'pairs.parquet');
    const r = await captureMain([
      'export',
      '--db',
      db,
      '--table',
      'exps',
      '--format',
      'trl-dpo',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const g2 = readParquetFile(out)
      .toArray()
      .map((x) => x.toJSON() as Record<string, unknown>)
      .find((x) => x.group_id === 'g2');
    expect([g2?.chosen_id, g2?.rejected_id, g2?.chosen_reward, g2?.rejected_reward]).toEqual([
      'g2-1',
      'g2-0',
      0.5,
      0.5,
    ]);
  });
});
