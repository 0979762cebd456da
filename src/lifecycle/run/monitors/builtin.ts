import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomicSync } from '../../../core/atomic-file.ts';
import { Registry } from '../../../core/registry.ts';
import { renderReport } from '../../report/report-html.ts';
import { defineMonitor, type MonitorDefinition } from './monitor.ts';
import { tensorboardMonitor } from './tensorboard.ts';

/** `<run folder>/report.html`: summary, charts over steps and the config. */
export const htmlReportMonitor = defineMonitor({
  name: 'html_report',
  description: 'writes <run folder>/report.html (charts over steps, the config) when the run ends',
  params: z.strictObject({
    file: z.string().min(1).default('report.html').describe('File name inside the run folder.'),
  }),
  create: (p, ctx) => ({
    name: 'html_report',
    onEnd: (summary) => {
      const file = join(ctx.runDir, p.file);
      writeFileAtomicSync(file, renderReport(summary));
      return [file];
    },
  }),
});

const csvCell = (v: unknown) => {
  if (v === undefined || v === null) return '';
  const s = typeof v === 'number' && !Number.isFinite(v) ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** `<run folder>/metrics.csv`: one row per step, for spreadsheets and pandas. */
export const metricsCsvMonitor = defineMonitor({
  name: 'metrics_csv',
  description: 'writes <run folder>/metrics.csv (one row per step) when the run ends',
  params: z.strictObject({ file: z.string().min(1).default('metrics.csv') }),
  create: (p, ctx) => ({
    name: 'metrics_csv',
    onEnd: (summary) => {
      const columns = [...new Set(summary.history.flatMap((r) => Object.keys(r)))];
      const lines = [
        columns.join(','),
        ...summary.history.map((r) => columns.map((c) => csvCell(r[c])).join(',')),
      ];
      const file = join(ctx.runDir, p.file);
      writeFileAtomicSync(file, `${lines.join('\n')}\n`);
      return [file];
    },
  }),
});

/** Monitors by config name (`monitors: [html_report, metrics_csv]`). */
export function monitorRegistry(): Registry<MonitorDefinition> {
  const reg = new Registry<MonitorDefinition>('monitor');
  for (const def of [htmlReportMonitor, metricsCsvMonitor, tensorboardMonitor])
    reg.register(def as MonitorDefinition);
  return reg;
}
