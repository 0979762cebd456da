import { get } from '../api.js';
import { cellText, grid, h } from '../dom.js';
import { lineChart } from './chart.js';

/** The metrics charted until the user picks others: the headline ones the runs record. */
const HEADLINE = ['meanReward', 'accuracy', 'effectiveTaskRatio', 'meanDifficulty'];
function headline(c) {
  const keys = c.metrics.map((m) => m.key);
  const found = HEADLINE.filter((k) => keys.includes(k));
  return found.length > 0 ? found : keys.slice(0, 4);
}

const fmtAcc = (v) => (v === null || v === undefined ? '' : `${(v * 100).toFixed(1)}%`);

/** Every run with status and headline numbers; tick two or more and compare them. */
export async function showRuns(root, { go }) {
  const { runs } = await get('/api/runs');
  const picked = new Set();
  const button = h(
    'button',
    {
      class: 'primary',
      disabled: true,
      'data-testid': 'compare',
      onclick: () => go(['compare'], { run: [...picked] }),
    },
    'Compare selected',
  );
  root.append(h('h1', {}, 'Runs'), h('div', { class: 'bar' }, button));
  const rows = runs
    .slice()
    .reverse()
    .map((r) => ({
      '': '',
      run: r.runId,
      kind: r.kind,
      status: r.status,
      steps: r.steps,
      accuracy:
        r.initialAccuracy === null && r.finalAccuracy === null
          ? ''
          : `${fmtAcc(r.initialAccuracy)} → ${fmtAcc(r.finalAccuracy)}`,
      started: r.startedAt.slice(0, 19),
      buffer: r.bufferTable ?? '',
    }));
  root.append(
    grid(['', 'run', 'kind', 'status', 'steps', 'accuracy', 'started', 'buffer'], rows, {
      testid: 'runs',
      render: (c, r) => {
        if (c === '')
          return h('input', {
            type: 'checkbox',
            'data-testid': `pick-${r.run}`,
            onchange: (e) => {
              if (e.target.checked) picked.add(r.run);
              else picked.delete(r.run);
              button.disabled = picked.size < 2;
            },
          });
        if (c === 'status') return h('span', { class: `pill ${r.status}` }, r.status);
        if (c === 'buffer' && r.buffer)
          return h('a', { href: `#/groups/${encodeURIComponent(r.buffer)}` }, r.buffer);
        return undefined;
      },
    }),
  );
}

/**
 * Metrics of two or more runs overlaid over steps, one chart per metric, with the configs diffed
 * beside them. While any run is running the view polls and redraws without a reload.
 */
export async function showCompare(root, { params, isCurrent }) {
  const ids = params.getAll('run');
  const charts = h('div', { class: 'charts', 'data-testid': 'charts' });
  const side = h('div', {});
  const head = h('div', {});
  const picker = h('div', { class: 'picker', 'data-testid': 'metric-picker' });
  root.append(
    h('h1', {}, `Compare ${ids.join(' · ')}`),
    head,
    picker,
    h('div', { class: 'cols' }, charts, side),
  );
  let chosen = params.getAll('metric');
  let last = null;
  const drawCharts = (c) => {
    charts.replaceChildren();
    for (const m of c.metrics) {
      if (!chosen.includes(m.key)) continue;
      const series = Object.fromEntries(
        c.runs.map((r) => [r.id, c.series[m.key]?.[r.id] ?? c.steps.map(() => null)]),
      );
      const { box } = lineChart(m.key, c.steps, series, { percent: m.unit === 'ratio' });
      box.title = m.description;
      charts.append(box);
    }
  };
  // The picked metrics live in the URL (metric=…), so a reload or a shared link shows the same charts.
  const pick = (keys) => {
    chosen = keys;
    const q = new URLSearchParams();
    for (const id of ids) q.append('run', id);
    for (const k of chosen) q.append('metric', k);
    history.replaceState(null, '', `#/compare?${q}`);
    drawPicker(last);
    drawCharts(last);
  };
  const drawPicker = (c) => {
    picker.replaceChildren(
      h('strong', {}, `Metrics (${chosen.length} of ${c.metrics.length} charted):`),
      h(
        'button',
        { class: 'link', 'data-testid': 'metrics-headline', onclick: () => pick(headline(c)) },
        'headline',
      ),
      h(
        'button',
        { class: 'link', 'data-testid': 'metrics-all', onclick: () => pick(c.metrics.map((m) => m.key)) },
        'all',
      ),
      ...c.metrics.map((m) =>
        h(
          'label',
          { title: m.description },
          h('input', {
            type: 'checkbox',
            'data-testid': `metric-${m.key}`,
            checked: chosen.includes(m.key),
            onchange: (e) =>
              pick(
                e.target.checked
                  ? c.metrics.map((x) => x.key).filter((k) => k === m.key || chosen.includes(k))
                  : chosen.filter((k) => k !== m.key),
              ),
          }),
          ` ${m.key}`,
        ),
      ),
    );
  };
  const draw = async () => {
    const c = await get('/api/compare', { run: ids });
    if (last === null && chosen.length === 0) chosen = headline(c);
    last = c;
    drawPicker(c);
    head.replaceChildren(
      grid(
        ['run', 'status', 'steps', 'initial accuracy', 'final accuracy', 'final mean reward'],
        c.runs.map((r) => ({
          run: r.id,
          status: r.status,
          steps: r.steps,
          'initial accuracy': fmtAcc(r.headline.initialAccuracy),
          'final accuracy': fmtAcc(r.headline.finalAccuracy),
          'final mean reward': r.headline.finalMeanReward,
        })),
        { testid: 'compare-runs' },
      ),
    );
    drawCharts(c);
    side.replaceChildren(
      h('h2', {}, 'Config differences'),
      c.configDiff.length === 0
        ? h('p', { class: 'note' }, 'The configs are the same.')
        : grid(
            ['path', ...c.runs.map((r) => r.id)],
            c.configDiff.map((d) =>
              Object.fromEntries([
                ['path', d.path + (d.changesResults ? '' : ' (no effect on results)')],
                ...c.runs.map((r, i) => [r.id, d.values[i] ?? '—']),
              ]),
            ),
            { testid: 'config-diff' },
          ),
      c.missing.length > 0
        ? h(
            'div',
            {},
            h('h2', {}, 'Not recorded'),
            h(
              'ul',
              {},
              c.missing.map((m) => h('li', { class: 'note' }, `${m.label}: ${cellText(m.reason)}`)),
            ),
          )
        : null,
    );
    return c.runs.some((r) => r.status === 'running');
  };
  let live = await draw();
  if (!live) return;
  // Live: a running run's charts update without a reload.
  const timer = setInterval(async () => {
    if (!isCurrent()) return clearInterval(timer);
    live = await draw().catch(() => live);
    if (!live) clearInterval(timer);
  }, 2000);
  window.studioStopLive = () => clearInterval(timer);
}
