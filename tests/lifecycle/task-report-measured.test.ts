import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import { measureLanded, TaskReportCollector } from '../../src/lifecycle/pipeline/report/collector.ts';

// A queued run's workers measure the rows they clean (measureLanded) and the coordinator counts the
// ones it keeps (landedMeasured): the report must be the one `landed` gives for those tasks.
const taskArb = fc.record({
  id: fc.string({ minLength: 1, maxLength: 6 }),
  taskset: fc.constantFrom('a', 'b', '数学', ''),
  prompt: fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('  two  words ', '数学の問題です', '😀 x\u00a0y'),
  ),
  features: fc.oneof(
    fc.constant({}),
    fc.record({ difficulty: fc.oneof(fc.double(), fc.constant(Number.NaN), fc.integer()) }),
  ),
  meta: fc.constant({}),
});

describe('report measures taken where rows are cleaned', () => {
  it('landedMeasured(measureLanded(tasks), kept) gives the summary of landed(kept tasks)', () => {
    fc.assert(
      fc.property(
        fc.array(taskArb, { maxLength: 30 }),
        fc.array(fc.boolean(), { maxLength: 30 }),
        (raw, keep) => {
          const tasks = raw as Task[];
          const kept = tasks.map((_, i) => i).filter((i) => keep[i] !== false);
          const direct = new TaskReportCollector();
          direct.landed(kept.map((i) => tasks[i]!));
          const measured = new TaskReportCollector();
          // Through JSON, as the measures travel from a worker.
          measured.landedMeasured(JSON.parse(JSON.stringify(measureLanded(tasks))), kept);
          expect(measured.summary()).toEqual(direct.summary());
        },
      ),
      { numRuns: 200, seed: 40 },
    );
  });
});
