import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('explorer.weightSync needs a trainer that names servable checkpoints', () => {
  it('with the export trainer: one line naming the key and the fix, before anything is written', async () => {
    const dir = tempDir('winnow-sync-config-');
    const config = smallRftConfig('sync-export', {
      explorer: {
        model: { type: 'openai', params: { model: 'm', baseUrl: 'http://127.0.0.1:9/v1' } },
        weightSync: { type: 'vllm_lora' },
        reward: 'math',
        repeat: 2,
        batchTasks: 2,
      },
      heldout: undefined,
      trainer: { type: 'export', params: { dir: join(dir, 'export') } },
    });
    await expect(
      runRft(config, { baseDir: REPO_ROOT, dbDir: join(dir, 'db'), runDir: join(dir, 'run') }),
    ).rejects.toThrow(
      "explorer.weightSync: trainer 'export' writes no checkpoints a model server can load, so weight sync would never load anything (use trainer type external (its step replies name a checkpoint), or remove explorer.weightSync)",
    );
    expect([
      existsSync(join(dir, 'db')),
      existsSync(join(dir, 'run')),
      existsSync(join(dir, 'export')),
    ]).toEqual([false, false, false]);
  });
});
