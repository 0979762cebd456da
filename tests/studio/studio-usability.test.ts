import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import type { StudioServer } from '../../src/studio/studio-server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { browserMissing, launchChromium } from './browser.ts';
import { call, makeStudioDb, startFixtureStudio } from './fixture.ts';

/**
 * What a person sees in the Studio, measured in a real Chromium: wide readable text cells, a
 * metric picker on compare, a labelling queue with keys and undo, rejected rows by run with whole
 * dropped groups openable, no "null"/"undefined" on screen, reasons that keep names, a filter hint
 * that works. One Studio and one browser for the file. WINNOW_SHOTS_DIR=/tmp/x keeps screenshots.
 */
const missing = browserMissing();
if (missing) console.warn(`studio usability browser tests skipped: ${missing}`);
const SHOTS = process.env.WINNOW_SHOTS_DIR ?? null;

/** A GSM8K-sized word problem (~70 words). */
const longPrompt = (i: number) =>
  `Problem ${i}: Natalia sold clips to ${i + 40} of her friends in April, and then she sold half as many clips in May. ` +
  'Each clip costs two dollars, and she spent a quarter of what she earned on a new backpack for school. ' +
  'Her brother gave her three more dollars on the weekend. How many dollars does Natalia have left at the end of May, ' +
  'and how many clips did she sell altogether in April and May? Show your reasoning step by step.';

describe.skipIf(missing !== null)('studio usability in Chromium', () => {
  const dir = tempDir('winnow-studio-usability-');
  let server: StudioServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    const places = await makeStudioDb(dir);
    await (await TaskStore.open(places.db, 'gsm')).write(
      Array.from({ length: 8 }, (_, i) => ({
        id: `q${i}`,
        taskset: 'gsm8k',
        prompt: longPrompt(i),
        answer: String(i),
        features: { difficulty: i / 10 },
        meta: {},
      })),
      'gsm-1',
    );
    // Many metrics (as a real run records), tool-use figures among them.
    const extra = (step: number) =>
      Object.fromEntries([
        ...Array.from({ length: 40 }, (_, k) => [`extra_${String(k).padStart(2, '0')}`, step + k]),
        ['tool_calls', 10 * step],
        ['tool_calls_invalid', step],
        ['tool_errors', step - 1],
      ]);
    writeFileSync(
      join(places.runs, 'fifo-1', 'metrics.jsonl'),
      [1, 2, 3]
        .map((step) =>
          JSON.stringify({ step, accuracy: 0.3 + step / 100, meanReward: step / 10, ...extra(step) }),
        )
        .join('\n'),
    );
    // A group the run fifo-1 dropped whole (its buffer is exps), with a reason naming gsm8k.
    const rejected = await RejectedStore.open(places.db);
    rejected.add(
      [0, 1].map((k) => ({
        step: 'stage',
        reason: `all ${4 + k} rewards equal in mode gsm8k`,
        file: '',
        row: -1,
        rowId: `g9${k}`,
        payload: JSON.stringify({ taskId: 't05', groupId: `g9${k}`, rewards: [1, 1, 1, 1] }),
        runId: 'fifo-1',
      })),
    );
    await rejected.flush();
    server = await startFixtureStudio(dir, { ...places, user: 'reviewer' });
    base = server.url;
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const ready = () => page.evaluate<string | undefined>('document.body.dataset.ready');
  /** Load a view afresh (a new document, so even the same hash renders again) and wait for it. */
  async function open(hash: string) {
    await page.goto('about:blank');
    await page.goto(`${base}${hash}`);
    await page.waitForFunction('document.body.dataset.ready !== undefined');
  }
  async function nav(action: () => Promise<unknown>) {
    const before = await ready();
    await action();
    await page.waitForFunction(`document.body.dataset.ready !== ${JSON.stringify(before ?? null)}`);
  }
  const shot = async (name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  };
  /** The words null/undefined anywhere in the view's text (inputs excluded). */
  const nullWords = () =>
    page.evaluate<string[]>(
      "[...document.getElementById('view').innerText.matchAll(/\\b(null|undefined|NaN)\\b/g)].map((m) => m[0])",
    );

  it('long prompts get a wide wrapping column: several GSM8K rows on one screen, expand shows all', async () => {
    await open('#/table/gsm');
    const cells = page.locator('[data-testid=rows] td.text [data-testid=cell-text]');
    expect(await cells.count()).toBe(8);
    const first = (await cells.nth(0).boundingBox())!;
    expect(first.width).toBeGreaterThanOrEqual(400);
    // Four rows (and more) start inside an 860 px high window.
    const fourth = (await page.locator('[data-testid=rows] tbody tr').nth(3).boundingBox())!;
    expect(fourth.y).toBeLessThan(860);
    expect(first.height).toBeLessThan(100);
    await shot('gsm-table');
    await page.locator('[data-testid=rows] [data-testid=expand]').first().click();
    const expanded = (await cells.nth(0).boundingBox())!;
    expect(expanded.height).toBeGreaterThan(first.height);
    expect(await cells.nth(0).evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    expect(await page.locator('[data-testid=rows] [data-testid=expand]').first().textContent()).toBe(
      'collapse',
    );
  });

  it('a refused filter hints at one that works: typing the hint gives rows', async () => {
    await open('#/table/gsm');
    await page.fill('[data-testid=where]', 'difficulty >');
    await nav(() => page.click('[data-testid=apply]'));
    const hint = (await page.textContent('[data-testid=error]'))!;
    const example = /e\.g\. (.+) — see docs/.exec(hint)?.[1];
    expect(example).toBe("taskset = 'gsm8k' AND features.difficulty > 0.5");
    await page.fill('[data-testid=where]', example!);
    await nav(() => page.click('[data-testid=apply]'));
    expect(await page.locator('[data-testid=error]').count()).toBe(0);
    expect(await page.locator('[data-testid=rows] tbody tr').count()).toBe(2);
  });

  it('compare charts the headline metrics; the picker adds tool-use figures and all, the chart count follows', async () => {
    await open('#/compare?run=fifo-1&run=prio-1');
    const charts = () => page.locator('[data-testid=charts] .chart').count();
    expect(await charts()).toBe(2);
    const picks = await page.$$eval('[data-testid=metric-picker] input', (els) =>
      els.map((e) => e.getAttribute('data-testid')),
    );
    expect(picks).toContain('metric-tool_calls');
    expect(picks).toContain('metric-tool_errors');
    expect(picks.length).toBe(45);
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    expect(height).toBeLessThan(2000);
    await page.check('[data-testid=metric-tool_calls]');
    expect(await charts()).toBe(3);
    expect(await page.evaluate('window.studioCharts.tool_calls.data[1]')).toEqual([null, 10, 20, 30]);
    expect(page.url()).toContain('metric=tool_calls');
    await shot('compare-picker');
    await page.click('[data-testid=metrics-all]');
    expect(await charts()).toBe(45);
    await page.click('[data-testid=metrics-headline]');
    expect(await charts()).toBe(2);
  });

  it('labelling queue: a reason, key 1 labels and moves on, u undoes; reward override undone from the page', async () => {
    await open('#/groups/exps');
    expect(await page.textContent('[data-testid=start-queue]')).toBe('Label the queue (4 unlabelled)');
    await nav(() => page.click('[data-testid=start-queue]'));
    expect(page.url()).toMatch(/#\/group\/exps\/g1\?queue=1/);
    expect(await page.textContent('[data-testid=current-label]')).toBe('not labelled yet');
    expect(await nullWords()).toEqual([]);
    await page.fill('[data-testid=reason]', 'first is right');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await shot('label-queue');
    await nav(() => page.keyboard.press('1'));
    expect(page.url()).toMatch(/#\/group\/exps\/g2\?queue=1/);
    const labels = await call(base, '/api/edits?table=exps&id=g1');
    expect(
      (labels.body.edits as Array<{ kind: string; reason: string }>).map((e) => [e.kind, e.reason]),
    ).toEqual([['preference', 'first is right']]);
    expect((await call(base, '/api/groups?table=exps')).body.unlabelled).toBe(3);
    expect(await page.textContent('[data-testid=last-edit]')).toMatch(/^last edit: labelled g1: g1-0 ≻ g1-1/);
    await nav(() => page.keyboard.press('u'));
    expect((await call(base, '/api/groups?table=exps')).body.unlabelled).toBe(4);

    // A reward override, then its Undo in the group's edits.
    await page.fill('[data-testid=reward-g2-0]', '0.25');
    await page.fill('[data-testid=reason]', 'partial credit');
    await nav(() => page.click('[data-testid=override-g2-0]'));
    expect(await page.inputValue('[data-testid=reward-g2-0]')).toBe('0.25');
    await nav(() => page.click('[data-testid=undo-reward-g2-0]'));
    const group = await call(base, '/api/group?table=exps&groupId=g2');
    expect(
      (group.body.responses as Array<{ id: string; reward: number }>).find((r) => r.id === 'g2-0')!.reward,
    ).toBe(0.5);
    expect(await page.inputValue('[data-testid=reward-g2-0]')).toBe('0.5');
  });

  it('rejected rows: no "(undefined)", a run picker, names kept in reasons, a dropped group opens', async () => {
    await open('#/rejected');
    expect(await page.textContent('h1')).toBe('Rejected rows (rejected)');
    expect(await nullWords()).toEqual([]);
    expect(await page.textContent('[data-testid=rejected-total]')).toBe('5 rows in 3 groups');
    const reasons = await page.$$eval('[data-testid=reason]', (els) => els.map((e) => e.textContent));
    expect(reasons).toContain('all # rewards equal in mode gsm8k');
    await nav(() => page.selectOption('[data-testid=run-picker]', 'fifo-1'));
    expect(await page.textContent('[data-testid=rejected-total]')).toBe('2 rows in 1 group from run fifo-1');
    await shot('rejected-by-run');
    await nav(() => page.click('[data-testid=open-group-g90]'));
    expect(await page.textContent('h1')).toBe('Group g90');
    expect(await page.textContent('[data-testid=dropped]')).toBe(
      'The run dropped this group whole: none of its responses is in the buffer table. Rewards: 1, 1, 1, 1.',
    );
    expect(
      await page.$$eval('[data-testid=filtered] tbody td', (tds) => tds.map((t) => t.textContent)),
    ).toEqual(['stage', 'all 4 rewards equal in mode gsm8k', 'g90']);
    expect(await nullWords()).toEqual([]);
  });

  it('no view shows "null" or "undefined": tables, a task, runs, edits, an unlabelled group', async () => {
    for (const hash of [
      '#/',
      '#/table/tasks',
      '#/task/tasks/t03',
      '#/runs',
      '#/edits',
      '#/group/exps/g3',
      '#/groups/exps',
    ]) {
      await open(hash);
      expect([hash, await nullWords()]).toEqual([hash, []]);
    }
  });
});
