import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import type { ModelBuildContext, ModelHandle } from '../../src/explorer/models/model-definition.ts';
import { PolicyGradientConfigSchema } from '../../src/tiny/pg-config.ts';
import { TinyPolicy } from '../../src/tiny/policy.ts';
import { policyGradientTrainer } from '../../src/tiny/policy-gradient-entry.ts';
import { PolicyGradientTrainer } from '../../src/tiny/policy-gradient-trainer.ts';
import { tinyModel } from '../../src/tiny/tiny-model.ts';
import { readTinyWeights, saveTinyPolicy } from '../../src/tiny/weights-file.ts';
import type { TrainerBuildContext } from '../../src/trainer/trainer-definition.ts';

let root: string;
let source: TinyPolicy;
const ctx = (over: Partial<ModelBuildContext> = {}): ModelBuildContext => ({
  baseDir: root,
  seed: 11,
  path: 'explorer.model',
  file: 'run.yaml',
  ...over,
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'winnow-tiny-model-'));
  source = await TinyPolicy.create({ hidden: 8, initSeed: 3 });
  await saveTinyPolicy(source, join(root, 'ckpt'));
});
afterAll(async () => {
  source.dispose();
  await rm(root, { recursive: true, force: true });
});

/** The error a build throws (sync or async); a build that succeeds fails the test. */
async function rejection(build: () => unknown): Promise<unknown> {
  try {
    await build();
  } catch (err) {
    return err;
  }
  throw new Error('expected the build to fail');
}

function sameWeights(a: readonly Float32Array[], b: readonly Float32Array[]): boolean {
  return (
    a.length === b.length && a.every((x, i) => x.length === b[i]!.length && x.every((v, j) => v === b[i]![j]))
  );
}

/** The trainer's copy with every weight shifted, so it differs from the explorer's everywhere. */
function shiftTrainer(handle: ModelHandle, by: number): Float32Array[] {
  const trainer = handle.trainable!.policy as TinyPolicy;
  const shifted = trainer.getWeights().map((w) => w.map((v) => v + by));
  trainer.setWeights(shifted);
  return shifted;
}

describe('tiny model entry', () => {
  it('params: a non-empty path and nothing else', () => {
    expect(tinyModel.params.safeParse({ path: 'ckpt' }).success).toBe(true);
    expect(tinyModel.params.safeParse({}).success).toBe(false);
    expect(tinyModel.params.safeParse({ path: '' }).success).toBe(false);
    expect(tinyModel.params.safeParse({ path: 'ckpt', hidden: 8 }).success).toBe(false);
  });

  it('loads the checkpoint relative to baseDir into a trainer copy and a separate explorer copy', async () => {
    const handle = await tinyModel.create({ path: 'ckpt' }, ctx());
    try {
      expect(handle.description).toMatch(
        new RegExp(
          `^tiny policy \\(${join(root, 'ckpt')}\\), tf backend (tfjs-node-gpu|tfjs-node|wasm|cpu)$`,
        ),
      );
      expect(handle.trainable?.kind).toBe('tiny');
      const trainer = handle.trainable!.policy as TinyPolicy;
      expect(trainer).toBeInstanceOf(TinyPolicy);
      expect(handle.rollout).toBeInstanceOf(TinyPolicy);
      expect(handle.rollout).not.toBe(trainer);
      const explorer = handle.rollout as TinyPolicy;
      expect(sameWeights(trainer.getWeights(), source.getWeights())).toBe(true);
      expect(sameWeights(explorer.getWeights(), source.getWeights())).toBe(true);
      expect(trainer.config).toEqual(source.config);
    } finally {
      handle.dispose?.();
    }
  });

  it('keeps the explorer on the old weights until sync, which returns the version it was given', async () => {
    const handle = await tinyModel.create({ path: 'ckpt' }, ctx());
    try {
      const explorer = handle.rollout as TinyPolicy;
      const shifted = shiftTrainer(handle, 0.5);
      expect(sameWeights(explorer.getWeights(), source.getWeights())).toBe(true);
      expect(await handle.sync!(3)).toBe(3);
      expect(sameWeights(explorer.getWeights(), shifted)).toBe(true);
      // Same weights, same seed: the explorer now samples exactly what the trainer's copy does.
      const request = { prompt: '12+30=', maxTokens: 6, temperature: 1, n: 2, seed: 9 };
      const trainer = handle.trainable!.policy as TinyPolicy;
      expect(await explorer.generate(request)).toEqual(await trainer.generate(request));
    } finally {
      handle.dispose?.();
    }
  });

  it('saves and restores the explorer copy on its own (it differs from the trainer between syncs)', async () => {
    const handle = await tinyModel.create({ path: 'ckpt' }, ctx());
    const saved = join(root, 'explorer-save');
    try {
      const explorer = handle.rollout as TinyPolicy;
      await handle.saveExplorer!(saved);
      expect(sameWeights((await readTinyWeights(saved)).values, source.getWeights())).toBe(true);
      shiftTrainer(handle, -0.25);
      await handle.sync!(1);
      expect(sameWeights(explorer.getWeights(), source.getWeights())).toBe(false);
      await handle.loadExplorer!(saved);
      expect(sameWeights(explorer.getWeights(), source.getWeights())).toBe(true);
      // The trainer's copy is untouched by the explorer's load.
      expect(sameWeights((handle.trainable!.policy as TinyPolicy).getWeights(), source.getWeights())).toBe(
        false,
      );
    } finally {
      handle.dispose?.();
    }
  });

  it('a missing folder is a ConfigError naming the key, the config file and the folder', async () => {
    const err = await rejection(() => tinyModel.create({ path: 'nope' }, ctx()));
    expect(err).toBeInstanceOf(ConfigError);
    const c = err as ConfigError;
    expect(c.path).toBe('explorer.model.params.path');
    expect(c.file).toBe('run.yaml');
    expect(c.message).toContain(`no tiny-policy folder at ${join(root, 'nope')}`);
  });

  it('a folder without manifest.json, or with a broken one, is a ConfigError too', async () => {
    await mkdir(join(root, 'empty'), { recursive: true });
    const empty = (await rejection(() => tinyModel.create({ path: 'empty' }, ctx()))) as ConfigError;
    expect(empty).toBeInstanceOf(ConfigError);
    expect(empty.path).toBe('explorer.model.params.path');
    expect(empty.message).toContain(`${join(root, 'empty')} holds no manifest.json`);

    await mkdir(join(root, 'broken'), { recursive: true });
    await writeFile(join(root, 'broken', 'manifest.json'), '{"format": "something-else"');
    const broken = (await rejection(() => tinyModel.create({ path: 'broken' }, ctx()))) as ConfigError;
    expect(broken).toBeInstanceOf(ConfigError);
    expect(broken.path).toBe('explorer.model.params.path');
    expect(broken.message).toContain(`cannot load the tiny policy: ${join(root, 'broken', 'manifest.json')}`);
    expect(broken.message).toContain('not valid JSON');
  });
});

describe('policy_gradient trainer entry', () => {
  const tctx = (trainable: TrainerBuildContext['trainable']): TrainerBuildContext => ({
    trainable,
    baseDir: root,
    runDir: join(root, 'run'),
    seed: 11,
    path: 'trainer',
    file: 'run.yaml',
  });

  it('refuses a model that is not the tiny policy, pointing at the export trainer', async () => {
    const params = PolicyGradientConfigSchema.parse({});
    for (const trainable of [null, { kind: 'openai', policy: {} }]) {
      const err = (await rejection(() =>
        policyGradientTrainer.create(params, tctx(trainable)),
      )) as ConfigError;
      expect(err).toBeInstanceOf(ConfigError);
      expect(err.path).toBe('trainer.type');
      expect(err.file).toBe('run.yaml');
      expect(err.message).toBe(
        "run.yaml: trainer.type: policy_gradient trains the built-in tiny policy; with an external model use trainer type 'export'",
      );
    }
  });

  it("builds a PolicyGradientTrainer on the model's trainable tiny policy with the parsed params", async () => {
    const handle = await tinyModel.create({ path: 'ckpt' }, ctx());
    try {
      const params = policyGradientTrainer.params.parse({ lr: 0.01, clipLow: 0.1 });
      const trainer = await policyGradientTrainer.create(params, tctx(handle.trainable ?? null));
      expect(trainer).toBeInstanceOf(PolicyGradientTrainer);
      const pg = trainer as PolicyGradientTrainer;
      expect(pg.policy).toBe(handle.trainable!.policy);
      expect(pg.config.lr).toBe(0.01);
      expect(pg.config.clipLow).toBe(0.1);
      expect(pg.config.beta1).toBe(0.9);
      expect(pg.version).toBe(0);
      trainer.dispose?.();
    } finally {
      handle.dispose?.();
    }
  });
});
