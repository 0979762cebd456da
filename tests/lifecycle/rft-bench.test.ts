import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import type { RftConfig } from '../../src/lifecycle/run/rft-config.ts';
import type { RftRunResult } from '../../src/lifecycle/run/types.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';
import { buildParts, placeIn, runLoop } from './run-loop-harness.ts';

const dir = tempDir('winnow-bench-');
const HELDOUT = 12;

/** The short sync run whose checkpoints are benchmarked: held-out accuracy after every step. */
function trainingConfig(): RftConfig {
  const base = smallRftConfig('bench-src', {
    trainer: { type: 'policy_gradient', params: { lr: 0.05 } },
    lifecycle: { mode: 'sync', steps: 2, checkpointEvery: 1 },
  });
  return { ...base, heldout: { ...base.heldout!, every: 1, size: HELDOUT } };
}

function benchConfig(checkpoints: string | undefined, over: Partial<RftConfig> = {}): RftConfig {
  const base = trainingConfig();
  return {
    ...base,
    name: 'bench',
    lifecycle: {
      ...base.lifecycle,
      mode: 'bench',
      ...(checkpoints !== undefined ? { benchCheckpoints: checkpoints } : {}),
    },
    ...over,
  };
}

let directRuns = 0;

/** Held-out accuracy of explorer weights (null: the model as configured), evaluated directly on fresh parts. */
async function accuracyOf(explorerDir: string | null): Promise<number> {
  const { parts } = await buildParts(trainingConfig(), placeIn(dir, `direct-${directRuns++}`));
  try {
    if (explorerDir !== null) await parts.loadExplorer!(explorerDir);
    return await parts.evaluate(parts.heldout);
  } finally {
    await parts.buffer.close();
    parts.dispose?.();
  }
}

describe('bench mode', () => {
  const src = placeIn(dir, 'src');
  const ckpts = join(src.runDir, 'checkpoints');
  let trained: RftRunResult;
  beforeAll(async () => {
    trained = (await runLoop(trainingConfig(), src)).result;
  });

  it('evaluates the configured model, then every checkpoint in step order, without training or writing the buffer', async () => {
    const at = placeIn(dir, 'bench');
    const { result, seen } = await runLoop(benchConfig(ckpts), at, {
      // A bench run builds no trainer; were one there, it must not have been stepped.
      inspect: async (parts) => ({
        buffered: await parts.buffer.count(),
        trainerVersion: parts.trainer?.version ?? 0,
      }),
    });
    const h = result.history;
    expect(h.map((r) => [r.step, r.explorerVersion, r.trainSteps])).toEqual([
      [0, 0, 0],
      [1, 1, 1],
      [2, 2, 2],
    ]);
    // Each accuracy is what those weights score when evaluated directly, and what the training run saw.
    const direct = [
      await accuracyOf(null),
      await accuracyOf(join(ckpts, 'step-000001', 'explorer')),
      await accuracyOf(join(ckpts, 'step-000002', 'explorer')),
    ];
    expect(new Set(direct).size).toBeGreaterThan(1); // the checkpoints really hold different weights
    expect(h.map((r) => r.accuracy)).toEqual(direct);
    expect(h.map((r) => r.accuracy)).toEqual([
      trained.initialAccuracy,
      trained.history[0]!.accuracy,
      trained.history[1]!.accuracy,
    ]);
    expect(result.initialAccuracy).toBe(direct[0]);
    expect(result.finalAccuracy).toBe(direct[2]);
    expect(h.map((r) => [r.tasks, r.rollouts, r.trainLoss])).toEqual([
      [HELDOUT, HELDOUT, Number.NaN],
      [HELDOUT, HELDOUT, Number.NaN],
      [HELDOUT, HELDOUT, Number.NaN],
    ]);
    // One metrics line per evaluation; no training, no buffer rows, no checkpoints of its own.
    const lines = readFileSync(join(at.runDir, 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { step: number }).step)).toEqual([0, 1, 2]);
    expect(seen).toEqual({ buffered: 0, trainerVersion: 0 });
    expect(result.counters.trained).toBe(0);
    expect(existsSync(join(at.runDir, 'checkpoints'))).toBe(false);
  });

  it('without benchCheckpoints evaluates only the configured model (step 0); a run folder works as well', async () => {
    const only = await runLoop(benchConfig(undefined), placeIn(dir, 'only'));
    expect(only.result.history.map((r) => [r.step, r.accuracy])).toEqual([[0, trained.initialAccuracy]]);
    const viaRunDir = await runLoop(benchConfig(src.runDir), placeIn(dir, 'via-run'));
    expect(viaRunDir.result.history.map((r) => r.step)).toEqual([0, 1, 2]);
  });

  it('fails clearly, before evaluating anything, without a held-out set or with unusable checkpoints', async () => {
    const noHeldout = await runLoop(
      benchConfig(ckpts, { heldout: undefined }),
      placeIn(dir, 'no-heldout'),
    ).catch((e: unknown) => e);
    expect(noHeldout).toBeInstanceOf(ConfigError);
    expect((noHeldout as Error).message).toBe(
      'heldout: mode bench evaluates on the held-out set or the evaluation sets, and there is none (add heldout: { source: … } or evaluation: { sets: [{ name, source, k }] })',
    );
    await expect(runLoop(benchConfig(join(dir, 'nowhere')), placeIn(dir, 'missing'))).rejects.toThrow(
      `lifecycle.benchCheckpoints: no such folder: ${join(dir, 'nowhere')}`,
    );
    await expect(runLoop(benchConfig(dir), placeIn(dir, 'empty'))).rejects.toThrow(
      `lifecycle.benchCheckpoints: ${dir} holds no step-N checkpoint folders`,
    );
    const noLoad = placeIn(dir, 'no-load');
    await expect(
      runLoop(benchConfig(ckpts), noLoad, {
        adjust: (parts) => {
          delete parts.loadExplorer;
        },
      }),
    ).rejects.toThrow('lifecycle.benchCheckpoints: this rollout model cannot load checkpoint weights');
    expect(existsSync(join(noLoad.runDir, 'metrics.jsonl'))).toBe(false);
  });
});
