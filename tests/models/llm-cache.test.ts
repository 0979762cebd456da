import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmCache, llmCacheKey } from '../../src/models/llm-cache.ts';
import { LlmCallParamsSchema, LlmChat } from '../../src/models/llm-chat.ts';
import { tempDir } from '../helpers/tmp.ts';
import { ScriptedLlmServer } from '../operators/task/scripted-llm-server.ts';

describe('LlmCache', () => {
  it('keys on the canonical request (key order does not matter), one file per key', async () => {
    const dir = join(tempDir(), 'c');
    const cache = new LlmCache(dir);
    expect(llmCacheKey({ a: 1, b: [1, { y: 2, x: 1 }] })).toBe(llmCacheKey({ b: [1, { x: 1, y: 2 }], a: 1 }));
    expect(llmCacheKey({ a: 1 })).not.toBe(llmCacheKey({ a: 2 }));
    await cache.put({ model: 'm', prompt: 'p' }, ['x', 'y']);
    const hash = llmCacheKey({ model: 'm', prompt: 'p' });
    expect(JSON.parse(readFileSync(join(dir, hash.slice(0, 2), `${hash}.json`), 'utf8'))).toEqual({
      version: 1,
      key: { model: 'm', prompt: 'p' },
      texts: ['x', 'y'],
    });
    expect(await cache.get({ prompt: 'p', model: 'm' })).toEqual(['x', 'y']);
    expect(await cache.get({ model: 'm', prompt: 'q' })).toBeUndefined();
  });

  it('treats a corrupt or foreign entry as a miss and overwrites it', async () => {
    const dir = join(tempDir(), 'c');
    const cache = new LlmCache(dir);
    const key = { model: 'm', prompt: 'p' };
    await cache.put(key, ['old']);
    writeFileSync(cache.pathOf(llmCacheKey(key)), '{"version": 1, "key": ');
    expect(await cache.get(key)).toBeUndefined();
    writeFileSync(
      cache.pathOf(llmCacheKey(key)),
      JSON.stringify({ version: 1, key: { other: 1 }, texts: ['no'] }),
    );
    expect(await cache.get(key)).toBeUndefined();
    const r = await cache.getOrCompute(key, async () => ['new']);
    expect(r).toEqual({ texts: ['new'], cached: false });
    expect(await cache.get(key)).toEqual(['new']);
  });

  it('shares one computation among concurrent callers of a key, and does not cache failures', async () => {
    const cache = new LlmCache(join(tempDir(), 'c'));
    let calls = 0;
    const compute = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 20));
      return [`reply ${calls}`];
    };
    const results = await Promise.all([1, 2, 3].map(() => cache.getOrCompute({ k: 1 }, compute)));
    expect(calls).toBe(1);
    expect(results.map((r) => r.texts[0])).toEqual(['reply 1', 'reply 1', 'reply 1']);
    expect(results.map((r) => r.cached)).toEqual([false, true, true]);
    await expect(
      cache.getOrCompute({ k: 2 }, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await cache.get({ k: 2 })).toBeUndefined();
    expect(cache.stats()).toEqual({ hits: 2, misses: 2 });
  });
});

describe('LlmChat', () => {
  const server = new ScriptedLlmServer((req) => ({
    contents: [`echo ${req.prompt}`],
    usage: { prompt_tokens: 7, completion_tokens: 2 },
  }));
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('sends one request for duplicate prompts in flight, counts usage and cost, and re-runs from disk', async () => {
    const cacheDir = join(tempDir(), 'c');
    const params = LlmCallParamsSchema.parse({
      model: { model: 'm', baseUrl: server.url, apiKey: 'k', logprobs: false },
      cacheDir,
      prices: { promptPer1k: 2 },
    });
    const chat = new LlmChat(params);
    const replies = await Promise.all(['a', 'b', 'a', 'a'].map((prompt) => chat.ask({ prompt, seed: 1 })));
    expect(replies).toEqual([['echo a'], ['echo b'], ['echo a'], ['echo a']]);
    expect(server.requests.map((r) => r.prompt).sort()).toEqual(['a', 'b']);
    expect(chat.usage()).toEqual({
      requests: 2,
      cacheHits: 2,
      promptTokens: 14,
      completionTokens: 4,
      cost: 0.028,
    });

    const rerun = new LlmChat(params);
    expect(await rerun.ask({ prompt: 'b', seed: 1 })).toEqual(['echo b']);
    // A different seed is a different request.
    expect(await rerun.ask({ prompt: 'b', seed: 2 })).toEqual(['echo b']);
    expect(server.requests.length).toBe(3);
    expect(rerun.usage()).toEqual({
      requests: 1,
      cacheHits: 1,
      promptTokens: 7,
      completionTokens: 2,
      cost: 0.014,
    });
  });

  it('takes baseUrl and apiKey from the environment like the rollout model', () => {
    const params = LlmCallParamsSchema.parse({ model: { model: 'm' } });
    expect(params.cacheDir).toBe('.winnow/llm-cache');
    const chat = new LlmChat(params, {
      env: { OPENAI_BASE_URL: 'http://10.0.0.1:9000/v1/', OPENAI_API_KEY: 'sk' },
    });
    expect(chat.model.url).toBe('http://10.0.0.1:9000/v1/chat/completions');
    expect(chat.model.config.apiKey).toBe('***');
  });
});
