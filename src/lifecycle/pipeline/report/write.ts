import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../../core/atomic-file.ts';
import type { TaskPipelineReport } from '../task-pipeline.ts';
import type { TaskReportCollector } from './collector.ts';
import { renderTaskReport } from './render.ts';

/** Write a task pipeline's report to `<runsDir>/<runId>/report.html`; returns the file. */
export function writeTaskReport(
  report: TaskPipelineReport,
  collector: TaskReportCollector,
  config: unknown,
  runsDir: string,
): string {
  const dir = join(runsDir, report.runId);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'report.html');
  writeFileAtomicSync(file, renderTaskReport({ ...report, summary: collector.summary(), config }));
  return file;
}
