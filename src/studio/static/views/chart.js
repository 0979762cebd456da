// uPlot line charts. Every chart is kept in window.studioCharts (title → uPlot instance) so a test,
// or a curious user in the console, can read the exact numbers drawn.
import uPlot from '/vendor/uplot.js';
import { h } from '../dom.js';

const COLORS = ['#2456c9', '#d2462b', '#2a8f3c', '#8e44ad', '#c58a00', '#138496', '#6c757d'];

window.studioCharts = window.studioCharts ?? {};

/**
 * A chart of `series` (name → values, null for gaps) over `x`. The y axis is scaled to the data
 * (a 33–43% accuracy does not sit flat on a 0–100% axis); `percent` labels ticks as percentages.
 */
export function lineChart(title, x, series, { percent = false, width = 460, height = 240 } = {}) {
  const names = Object.keys(series);
  const box = h(
    'div',
    { class: 'chart', 'data-testid': `chart-${title}` },
    h('div', {}, h('strong', {}, title)),
  );
  const fmt = (v) =>
    v === null || v === undefined
      ? ''
      : percent
        ? `${Number((v * 100).toPrecision(3))}%`
        : String(Number(v.toPrecision(4)));
  const opts = {
    width,
    height,
    scales: { x: { time: false } },
    axes: [
      { label: 'step', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
      { values: (_u, ticks) => ticks.map(fmt), size: 60 },
    ],
    series: [
      { label: 'step' },
      ...names.map((n, i) => ({
        label: n,
        stroke: COLORS[i % COLORS.length],
        width: 2,
        spanGaps: true,
        value: (_u, v) => fmt(v),
        points: { show: true, size: 5 },
      })),
    ],
  };
  const chart = new uPlot(opts, [x, ...names.map((n) => series[n])], box);
  window.studioCharts[title] = chart;
  return { box, chart };
}
