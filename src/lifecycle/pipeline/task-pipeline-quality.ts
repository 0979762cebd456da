import { DataQualityError } from '../../core/errors.ts';
import { type StepMetrics, topReasons } from '../../operators/step-metrics.ts';

export interface RunTally {
  runId: string;
  dbDir: string;
  rejectedTable: string;
  rowsRead: number;
  /** Rows that could not be read or mapped. */
  inputErrors: number;
  tasksOut: number;
  maxRejectedShare: number;
  /** Every step's metrics (read and map first), for the top reasons. */
  steps: readonly StepMetrics[];
}

function percent(part: number, whole: number): string {
  return `${Math.round((part / whole) * 1000) / 10}%`;
}

/**
 * A run fails its data-quality bar when it read rows but lands none, or when more than
 * `maxRejectedShare` of the rows read could not be read or mapped (operator drops are the
 * pipeline's purpose and do not count). Decided before the run's last commit, so a failing run
 * lands nothing. Returns the error to throw, or undefined.
 */
export function rejectionVerdict(t: RunTally): DataQualityError | undefined {
  if (t.rowsRead === 0) return undefined;
  const hint = `see: winnow inspect --db ${t.dbDir} --table ${t.rejectedTable} --run ${t.runId}`;
  const n = (x: number) => x.toLocaleString('en-US');
  if (t.tasksOut === 0) {
    const top = topReasons(t.steps);
    return new DataQualityError(
      `every row was rejected: 0 of ${n(t.rowsRead)} rows read became tasks${top.length > 0 ? ` (top reasons: ${top.join('; ')})` : ''}; nothing was landed; ${hint}`,
    );
  }
  if (t.inputErrors / t.rowsRead > t.maxRejectedShare) {
    const top = topReasons(t.steps.filter((s) => s.step === 'read' || s.step === 'map'));
    return new DataQualityError(
      `${n(t.inputErrors)} of ${n(t.rowsRead)} rows read (${percent(t.inputErrors, t.rowsRead)}) could not be read or mapped, more than output.maxRejectedShare ${t.maxRejectedShare} allows (top reasons: ${top.join('; ')}); nothing was landed; ${hint}`,
    );
  }
  return undefined;
}
