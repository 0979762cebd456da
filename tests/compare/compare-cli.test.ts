import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { COMPARISON_DATA_ID } from '../../src/lifecycle/report/compare/compare-html.ts';
import { runComparisonSchema } from '../../src/lifecycle/report/compare/run-comparison-schema.ts';
import { captureMain } from '../cli/capture.ts';
import { tempDir } from '../helpers/tmp.ts';
import { twoRuns } from './run-folders.ts';

const root = tempDir('winnow-compare-cli-');
const runsDir = join(root, 'runs');
const { bots, random } = twoRuns(runsDir);
const noDb = join(root, 'no-db');

/** The comparison the page embeds, checked against its schema. */
function embedded(html: string) {
  const m = new RegExp(`<script type="application/json" id="${COMPARISON_DATA_ID}">([^<]*)</script>`).exec(
    html,
  );
  return runComparisonSchema.parse(JSON.parse(m![1]!));
}

describe('winnow compare', () => {
  it('writes one offline HTML file with the runs, the metrics over steps and the config diff', async () => {
    const out = join(root, 'cmp.html');
    const r = await captureMain(['compare', 'bots-1', random, '--runs', runsDir, '--db', root, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`wrote ${out}: 2 runs, 6 metrics over 4 steps, 5 config key(s) differ\n`);
    const html = readFileSync(out, 'utf8');
    // Offline: nothing is fetched (no src=, no href= to anything, no http URL).
    expect(html).not.toMatch(/<script[^>]+src=|<link |https?:\/\//);
    const c = embedded(html);
    expect(c.runs.map((x) => [x.id, x.dir, x.status])).toEqual([
      ['bots-1', bots, 'completed'],
      ['random-1', random, 'unfinished'],
    ]);
    expect(c.series.accuracy).toEqual({
      'bots-1': [0.33, null, 0.4, 0.43],
      'random-1': [null, null, 0.35, null],
    });
    expect(c.series.effectiveTaskRatio).toEqual({
      'bots-1': [null, 0.5, 0.75, 1],
      'random-1': [null, 0.25, 0.5, null],
    });
    // The pre-drawn figure is held-out accuracy, both runs overlaid, with a table of its values.
    const cells = [
      ...html.matchAll(/<td data-run="([^"]+)" data-step="(\d+)" data-value="([\d.]+)">([^<]+)<\/td>/g),
    ];
    expect(cells.map((m) => [m[1], Number(m[2]), Number(m[3]), m[4]])).toEqual([
      ['bots-1', 0, 0.33, '33.0%'],
      ['bots-1', 2, 0.4, '40.0%'],
      ['random-1', 2, 0.35, '35.0%'],
      ['bots-1', 3, 0.43, '43.0%'],
    ]);
    const figure = html.slice(html.indexOf('<div id="figure">'), html.indexOf('<script'));
    expect([...figure.matchAll(/<g data-series="([^"]+)">/g)].map((m) => m[1])).toEqual([
      'bots-1',
      'random-1',
    ]);
    expect(figure).toContain('data-y-min="0.3" data-y-max="0.45"');
    expect(html).toContain(
      '<select id="metric"><option value="meanReward">mean reward</option><option value="accuracy" selected>',
    );
    expect(
      [...html.matchAll(/<tr class="(meaning|harmless)" data-path="([^"]+)">/g)].map(
        (m) => `${m[1]}:${m[2]}`,
      ),
    ).toEqual([
      'meaning:buffer.sampler.type',
      'harmless:lifecycle.steps',
      'harmless:monitors',
      'meaning:selector.params',
      'meaning:selector.type',
    ]);
    expect(html).toContain('Not recorded by these runs: replay reuse');
  });

  it('the page script redraws another metric from the embedded data, in the browser and without a network', () => {
    const html = readFileSync(join(root, 'cmp.html'), 'utf8');
    const script = /<script>\n([\s\S]*)<\/script>/.exec(html)![1]!;
    const json = new RegExp(`id="${COMPARISON_DATA_ID}">([^<]*)</script>`).exec(html)![1]!;
    // A minimal stand-in for the DOM: the select, the two run boxes, the figure.
    const listeners: Record<string, () => void> = {};
    const figure = { innerHTML: '' };
    const select = {
      value: 'meanReward',
      addEventListener: (_: string, f: () => void) => (listeners.metric = f),
    };
    const box = (id: string, checked: boolean) => ({
      checked,
      getAttribute: () => id,
      addEventListener: (_: string, f: () => void) => (listeners[id] = f),
    });
    const document = {
      getElementById: (id: string) =>
        id === COMPARISON_DATA_ID ? { textContent: json } : id === 'metric' ? select : figure,
      querySelectorAll: () => [box('bots-1', false), box('random-1', true)],
    };
    runInNewContext(script, { document });
    listeners.metric!();
    const cells = [
      ...figure.innerHTML.matchAll(/data-run="([^"]+)" data-step="(\d+)" data-value="([\d.]+)"/g),
    ];
    expect(cells.map((m) => [m[1], Number(m[2]), Number(m[3])])).toEqual([
      ['random-1', 1, 0.125],
      ['random-1', 2, 0.25],
    ]);
    expect(figure.innerHTML).toContain('<figcaption>mean reward over steps</figcaption>');
    expect(figure.innerHTML).not.toContain('data-series="bots-1"');
  });

  it('refuses an unknown run id with exit 2, naming it and the nearest ids', async () => {
    const r = await captureMain([
      'compare',
      'bots-1',
      'bots-2',
      '--runs',
      runsDir,
      '--db',
      root,
      '--out',
      join(root, 'x.html'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: unknown run 'bots-2' in ${runsDir} (nearest: 'bots-1'; winnow runs lists them)\n`,
    );
    expect(r.stdout).toBe('');
  });

  it('refuses one run, a missing folder and a foreign folder in one line each (exit 2)', async () => {
    const one = await captureMain(['compare', 'bots-1', '--runs', runsDir]);
    expect([one.code, one.stderr]).toEqual([
      2,
      "error: compare needs two or more runs, got only 'bots-1' (winnow runs lists them)\n",
    ]);
    const missing = await captureMain(['compare', 'bots-1', './nowhere', '--runs', runsDir, '--db', noDb]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `error: no database folder at ${noDb} (pass --db DIR; winnow run creates it)\n`,
    );
    const noFolder = await captureMain(['compare', 'bots-1', join(root, 'nowhere'), '--runs', runsDir]);
    expect([noFolder.code, noFolder.stderr]).toEqual([
      2,
      `error: ${join(root, 'nowhere')}: no such run folder (winnow runs lists the runs and their folders)\n`,
    ]);
    const foreign = await captureMain(['compare', 'bots-1', root, '--runs', runsDir]);
    expect([foreign.code, foreign.stderr]).toEqual([
      2,
      `error: ${root}: not a Winnow RFT run folder (no run-config.json; winnow run writes one in each run folder)\n`,
    ]);
  });
});
