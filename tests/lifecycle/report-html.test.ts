import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { chartScriptSource, lineChart, type Series } from '../../src/lifecycle/report/charts.ts';
import { renderReport } from '../../src/lifecycle/report/report-html.ts';
import type { ReportInput } from '../../src/lifecycle/report/report-input.ts';
import type { StepRecord } from '../../src/lifecycle/run/step-record.ts';

function rec(step: number, extra: Record<string, number>): StepRecord {
  return {
    step,
    explorerVersion: step - 1,
    trainSteps: step,
    tasks: 4,
    rollouts: 16,
    meanReward: 0.2 + step * 0.1,
    effectiveTaskRatio: 0.5,
    meanDifficulty: 0.3,
    failedGroups: 0,
    emptyResponses: 0,
    experiencesKept: 16,
    experiencesDropped: 0,
    trainLoss: 1,
    exploreMs: 100,
    trainMs: 10,
    stepMs: 120,
    rolloutsPerSecond: 160,
    ...extra,
  };
}

const input: ReportInput = {
  name: 'arith',
  runId: 'arith-1',
  config: {
    name: 'arith',
    buffer: {
      sampler: { type: 'version_priority', params: { alpha: 0.6 } },
      rateLimiter: { samplesPerInsert: 2, errorBuffer: 8 },
      keepGroups: true,
      capacity: null,
    },
    sampling: { type: 'staleness', params: { maxStaleness: 2 } },
    lifecycle: { mode: 'async', maxExploreAhead: 2, syncOffset: 0, syncInterval: 1 },
  },
  history: [
    rec(1, { accuracy: 0.35, 'accuracy/algebra': 0.2, 'accuracy/geometry': 0.5 }),
    rec(2, { accuracy: 0.43, 'accuracy/algebra': 0.3, 'accuracy/geometry': 0.55 }),
  ],
  initialAccuracy: 0.33,
  finalAccuracy: 0.43,
  describe: { selector: 'bots' },
  counters: { rollouts: 32, skippedStale: 3, initialAccuracy: 0.3333333 },
  durationMs: 1234,
};

/** The <svg> of the chart titled `title`. */
const svgOf = (html: string, title: string) => {
  const at = html.indexOf(`<figcaption>${title}</figcaption>`);
  return html.slice(at, html.indexOf('</svg>', at));
};
const tickLabels = (svg: string) => [...svg.matchAll(/text-anchor="end">([^<]+)</g)].map((m) => m[1]);

describe('renderReport', () => {
  const html = renderReport(input);

  it('scales the held-out accuracy axis to the data (33%→43% on 30%–45%) with labelled ticks', () => {
    const svg = svgOf(html, 'Held-out accuracy (greedy)');
    expect(svg).toContain('data-y-min="0.3" data-y-max="0.45"');
    expect(tickLabels(svg)).toEqual(['30%', '35%', '40%', '45%']);
    expect(
      [...svg.matchAll(/data-x="(\d+)" data-y="([\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]),
    ).toEqual([
      [0, 0.33],
      [1, 0.35],
      [2, 0.43],
    ]);
    expect(svg).toContain('<title>accuracy · step 0: 33.0%</title>');
    // The x axis labels whole steps.
    expect([...svg.matchAll(/text-anchor="middle">(\d+)</g)].map((m) => m[1])).toEqual(['0', '1', '2']);
  });

  it('rounds numbers in the summary and counters', () => {
    expect(html).toContain('held-out accuracy 33.0% → 43.0%');
    expect(html).toContain('<th>initialAccuracy</th><td>0.333</td>');
    expect(html).toContain('<th>rollouts</th><td>32</td>');
  });

  it('shows accuracy by domain, the buffer and replay settings, and folds the config away', () => {
    expect(
      [
        ...html.matchAll(
          /<tr data-domain="([^"]+)" data-last="([\d.]+)"><td>[^<]+<\/td><td><code>[^<]+<\/code><\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td>/g,
        ),
      ].map((m) => m.slice(1)),
    ).toEqual([
      ['algebra', '0.3', '20.0%', '30.0%', '30.0%', '+10.0 pt'],
      ['geometry', '0.55', '50.0%', '55.0%', '55.0%', '+5.0 pt'],
    ]);
    const buffer = html.slice(
      html.indexOf('<h2>Buffer and replay</h2>'),
      html.indexOf('</table>', html.indexOf('<h2>Buffer and replay</h2>')),
    );
    expect(
      [...buffer.matchAll(/<tr><th>([^<]+)<\/th><td>([^<]+)<\/td><\/tr>/g)].map((m) => [m[1], m[2]]),
    ).toEqual([
      ['sampler', 'version_priority (alpha=0.6)'],
      ['remover', "the sampler's choice"],
      ['rate limiter (replay ratio)', '{&quot;samplesPerInsert&quot;:2,&quot;errorBuffer&quot;:8}'],
      ['keep groups whole', 'true'],
      ['capacity', 'unbounded'],
      ['sample strategy', 'staleness (maxStaleness=2)'],
      ['mode', 'async'],
      ['explorer may run ahead (steps)', '2'],
      ['sync offset (off-policy steps)', '0'],
      ['sync interval (steps)', '1'],
      ['train batch', 'one explorer step'],
      ['rows skipped as stale', '3'],
    ]);
    expect(html).toMatch(
      /<h2>Config<\/h2>\n<details class="config"><summary>the parsed config as JSON \(\d+ lines\)<\/summary><pre>\{/,
    );
    expect(html).not.toMatch(/<details[^>]* open/);
  });

  it('draws six charts over steps plus one for the domains', () => {
    expect(html.match(/<svg /g)?.length).toBe(7);
  });
});

describe('chartScriptSource', () => {
  it('is the chart code itself: evaluated on its own it draws exactly what lineChart draws', () => {
    const series = [
      {
        label: 'run a',
        points: [
          [1, 0.33],
          [2, 0.43],
        ],
        color: '#1f77b4',
      },
      {
        label: 'run b',
        points: [
          [1, 0.3],
          [3, 0.38],
        ],
        color: '#d62728',
      },
    ] satisfies Series[];
    const fromScript = runInNewContext(
      `${chartScriptSource()}\nlineChart(title, series, { percent: true })`,
      {
        title: 'accuracy',
        series,
      },
    ) as string;
    expect(fromScript).toBe(lineChart('accuracy', series, { percent: true }));
    expect(fromScript).toContain('data-y-min="0.25" data-y-max="0.45"');
  });
});
