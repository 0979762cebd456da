import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DataError } from '../../src/core/errors.ts';
import { sequenceLogits, stepInputs } from '../../src/tiny/gru.ts';
import { paramSpecs } from '../../src/tiny/params.ts';
import { TinyPolicy } from '../../src/tiny/policy.ts';
import { EOS_ID, VOCAB_SIZE } from '../../src/tiny/vocab.ts';
import { loadTinyPolicy, readTinyWeights, saveTinyPolicy } from '../../src/tiny/weights-file.ts';

let policy: TinyPolicy;
let dir: string;

beforeAll(async () => {
  policy = await TinyPolicy.create({ hidden: 24, initSeed: 5 });
  dir = await mkdtemp(join(tmpdir(), 'winnow-tiny-'));
});
afterAll(async () => {
  policy.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('TinyPolicy construction', () => {
  it('lays out parameters per gate and initialises them from the seed alone', () => {
    expect(paramSpecs(policy.config).map((s) => `${s.name}[${s.shape.join('x')}]`)).toEqual([
      'gru0.wxz[17x24]',
      'gru0.wxr[17x24]',
      'gru0.wxn[17x24]',
      'gru0.whz[24x24]',
      'gru0.whr[24x24]',
      'gru0.whn[24x24]',
      'gru0.bz[24]',
      'gru0.br[24]',
      'gru0.bxn[24]',
      'gru0.bhn[24]',
      'out.w[24x17]',
      'out.b[17]',
    ]);
    const again = new TinyPolicy({ hidden: 24, initSeed: 5 });
    const other = new TinyPolicy({ hidden: 24, initSeed: 6 });
    expect(again.getWeights()).toEqual(policy.getWeights());
    expect(other.getWeights()[0]).not.toEqual(policy.getWeights()[0]);
    again.dispose();
    other.dispose();
  });

  it('reports bad settings with their config path', () => {
    expect(() => new TinyPolicy({ hidden: 2 })).toThrow(ConfigError);
    expect(() => new TinyPolicy({ hidden: 2 })).toThrow(/policy\.hidden/);
  });
});

describe('TinyPolicy.generate', () => {
  it('is deterministic for a seed and returns consistent fields', async () => {
    const a = await policy.generate({ prompt: '37+48=', n: 4, seed: 11, maxTokens: 5 });
    const b = await policy.generate({ prompt: '37+48=', n: 4, seed: 11, maxTokens: 5 });
    expect(a).toEqual(b);
    expect(a).toHaveLength(4);
    for (const g of a) {
      expect(g.promptTokens).toEqual([5, 9, 12, 6, 10, 15]);
      expect(g.logprobs).toHaveLength(g.tokens.length);
      expect(g.tokens.length).toBeLessThanOrEqual(5);
      for (const lp of g.logprobs) expect(lp).toBeLessThanOrEqual(0);
      expect(g.tokens).not.toContain(0); // PAD is never sampled
      if (g.finishReason === 'stop') expect(g.tokens[g.tokens.length - 1]).toBe(EOS_ID);
      else expect(g.tokens).toHaveLength(5);
      expect(g.text).not.toMatch(/<eos>/);
    }
    const c = await policy.generate({ prompt: '37+48=', n: 4, seed: 12, maxTokens: 5 });
    expect(c).not.toEqual(a);
  });

  it('gives each request the same completions whatever else is in the batch', async () => {
    const a = { prompt: '12+345=', n: 3, seed: 5, maxTokens: 6 };
    const b = { prompt: '7=', n: 5, seed: 9, maxTokens: 4, temperature: 0.7 };
    const alone = await policy.generate(a);
    const batched = await policy.generateBatch([b, a, b]);
    expect(batched[1]).toEqual(alone);
    expect(batched[0]).toEqual(batched[2]);
    expect(batched.map((x) => x.length)).toEqual([5, 3, 5]);
  });

  it('samples greedily at temperature 0 (all samples equal, argmax of the logits)', async () => {
    const gens = await policy.generate({ prompt: '5+5=', n: 3, temperature: 0, maxTokens: 3 });
    expect(gens[1]).toEqual(gens[0]);
    expect(gens[2]).toEqual(gens[0]);
    const first = gens[0]!.tokens[0]!;
    const logits = tf.tidy(() =>
      sequenceLogits(
        policy.weights(),
        stepInputs(Int32Array.from([7, 12, 7, 15]), 1, 4, VOCAB_SIZE),
      ).dataSync(),
    );
    const last = Array.from(logits.slice(3 * VOCAB_SIZE, 4 * VOCAB_SIZE));
    expect(first).toBe(last.indexOf(Math.max(...last)));
  });

  it('reports logprobs equal to a teacher-forced pass over the same tokens', async () => {
    const [g] = await policy.generate({ prompt: '9-4=', n: 1, seed: 3, maxTokens: 4 });
    const seq = [...g!.promptTokens, ...g!.tokens];
    const S = seq.length - 1;
    const logits = tf.tidy(() =>
      tf
        .logSoftmax(sequenceLogits(policy.weights(), stepInputs(Int32Array.from(seq), 1, S, VOCAB_SIZE)))
        .arraySync(),
    ) as number[][];
    g!.tokens.forEach((tok, k) => {
      expect(g!.logprobs[k]!).toBeCloseTo(logits[g!.promptTokens.length - 1 + k]![tok]!, 5);
    });
  });

  it('reads the last user turn of a chat and refuses what it cannot encode', async () => {
    const viaChat = await policy.generate({
      messages: [
        { role: 'user', content: '1+1=' },
        { role: 'assistant', content: '2' },
        { role: 'user', content: '2+2=' },
      ],
      n: 1,
      seed: 1,
    });
    expect(viaChat[0]!.promptTokens).toEqual([4, 12, 4, 15]);
    await expect(policy.generate({ prompt: 'what is 2+2?', n: 1 })).rejects.toThrow(DataError);
    await expect(policy.generate({ prompt: '', n: 1 })).rejects.toThrow(/prompt is empty/);
    await expect(policy.generate({ prompt: '1=', n: 1, maxTokens: 0 })).rejects.toThrow(
      /requests\[0\]\.maxTokens/,
    );
    expect(await policy.generate({ prompt: '1=', n: 0 })).toEqual([]);
  });

  it('does not leak tensors', async () => {
    await policy.generateBatch([{ prompt: '1+2=', n: 2, seed: 1 }]);
    const before = tf.memory().numTensors;
    await policy.generateBatch([
      { prompt: '1+2=', n: 4, seed: 1 },
      { prompt: '33-4=', n: 2, seed: 2 },
    ]);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('saveTinyPolicy / loadTinyPolicy', () => {
  it('round-trips weights exactly, with meta, and generates identically', async () => {
    const target = join(dir, 'p1');
    const manifest = await saveTinyPolicy(policy, target, { note: 'test' });
    expect(manifest.tensors.map((t) => t.name)).toEqual(policy.specs.map((s) => s.name));
    const loaded = await loadTinyPolicy(target);
    expect(loaded.getWeights()).toEqual(policy.getWeights());
    expect(loaded.config).toEqual(policy.config);
    expect((await readTinyWeights(target)).meta).toEqual({ note: 'test' });
    const req = { prompt: '44+7=', n: 3, seed: 8 };
    expect(await loaded.generate(req)).toEqual(await policy.generate(req));
    loaded.dispose();
  });

  it('refuses a weights file whose checksum does not match', async () => {
    const target = join(dir, 'p2');
    await saveTinyPolicy(policy, target);
    const bin = await readFile(join(target, 'weights.bin'));
    bin[10] = bin[10]! ^ 0xff;
    await writeFile(join(target, 'weights.bin'), bin);
    await expect(loadTinyPolicy(target)).rejects.toThrow(/sha256 .* does not match/);
  });

  it('names the manifest field that is wrong', async () => {
    const target = join(dir, 'p3');
    await saveTinyPolicy(policy, target);
    const m = JSON.parse(await readFile(join(target, 'manifest.json'), 'utf8'));
    m.config.hidden = 'wide';
    await writeFile(join(target, 'manifest.json'), JSON.stringify(m));
    await expect(loadTinyPolicy(target)).rejects.toThrow(/manifest\.json: config\.hidden/);
  });
});
