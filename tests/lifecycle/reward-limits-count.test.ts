import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatRftReport } from '../../src/cli/run-report.ts';
import { Hooks } from '../../src/lifecycle/hooks.ts';
import type { RftEvents } from '../../src/lifecycle/run/rft-events.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('reward judgements given up are counted in the run record', () => {
  it('every rollout a reward gave up on (timeout, too_large, too_costly) is counted, and the summary says so', async () => {
    const dir = tempDir('winnow-reward-limits-');
    const rewardFile = join(dir, 'giving-up.ts');
    writeFileSync(
      rewardFile,
      [
        'export function givingUp({ response, task }: { response: string; task: { id: string } }) {',
        '  const d = [...(task.id + response)].reduce((a, c) => a + c.charCodeAt(0), 0);',
        "  const reason = ['timeout', 'too_large', 'too_costly', 'not_equal'][d % 4];",
        '  return { reward: 0, info: { reason } };',
        '}',
        '',
      ].join('\n'),
    );
    const config = smallRftConfig('limits', {
      explorer: {
        model: { type: 'tiny', params: { path: 'datasets/arithmetic/warm-start' } },
        // A reward that gives up the way the math verifier does, on a hash of task and response.
        reward: { module: rewardFile, export: 'givingUp' },
        repeat: 4,
        batchTasks: 4,
      },
      heldout: undefined,
      experienceOps: [],
      lifecycle: { mode: 'explore', steps: 2, checkpointEvery: 2 },
    });
    const reasons: string[] = [];
    const hooks = new Hooks<RftEvents>().on('afterRollout', (p) => {
      for (const e of p.rows) reasons.push(String(e.info.reason));
    });
    const r = await runRft(config, {
      baseDir: REPO_ROOT,
      dbDir: join(dir, 'db'),
      runDir: join(dir, 'run'),
      hooks,
    });
    const tooLarge = reasons.filter((x) => x === 'too_large').length;
    expect(reasons).toHaveLength(32);
    expect(tooLarge).toBeGreaterThan(0);
    expect(reasons.filter((x) => x === 'timeout').length).toBeGreaterThan(0);
    const tooCostly = reasons.filter((x) => x === 'too_costly').length;
    expect(tooCostly).toBeGreaterThan(0);
    expect(r.counters.rewardTooLarge).toBe(tooLarge);
    expect(r.counters.rewardTooCostly).toBe(tooCostly);
    expect(r.counters.rewardTimeouts ?? 0).toBe(reasons.filter((x) => x === 'timeout').length);
    expect(formatRftReport(r).split('\n')).toContain(
      `reward judgements given up (scored 0): ${r.counters.rewardTimeouts ?? 0} timed out, ${tooLarge} too large, ${tooCostly} too costly`,
    );
  });
});
