import type { RunRecorder } from '../../store/run-table.ts';
import type { Monitor } from './monitors/monitor.ts';
import type { StepRecord } from './step-record.ts';

/**
 * Tell monitors of the numbers before the first step and of every finished step as it is written
 * (TensorBoard files grow while the run goes), then the caller's own `onStep`. A monitor's async
 * callback runs in the background; `settled()` waits for all of them and throws the first failure,
 * so a broken monitor still fails the run.
 */
export function monitorSteps(
  monitors: readonly Monitor[],
  onStep: ((record: StepRecord, total: number) => void) | undefined,
): {
  onStart: (initial: Record<string, number>) => void;
  onStep: (record: StepRecord, total: number) => void;
  settled: () => Promise<void>;
} {
  const pending: Promise<unknown>[] = [];
  let failure: unknown;
  const track = (r: void | Promise<void>) => {
    if (r) pending.push(r.catch((err: unknown) => (failure ??= err)));
  };
  return {
    onStart: (initial) => {
      for (const m of monitors) track(m.onStart?.(initial));
    },
    onStep: (record, total) => {
      for (const m of monitors) track(m.onStep?.(record));
      onStep?.(record, total);
    },
    settled: async () => {
      await Promise.all(pending);
      if (failure !== undefined) throw failure;
    },
  };
}

/** On SIGINT/SIGTERM: record the run as interrupted (it can be resumed from its last checkpoint), then exit. */
export function onStopSignal(recorder: RunRecorder): () => void {
  const handler = (signal: NodeJS.Signals) => {
    recorder
      .mark('interrupted', 0, { reason: `stopped by ${signal}` })
      .catch(() => undefined)
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
