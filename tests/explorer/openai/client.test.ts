import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import {
  DEFAULT_BASE_URL,
  OpenAIRolloutModel,
  RolloutError,
  resolveOpenAIConfig,
} from '../../../src/models/openai/index.ts';
import { FakeServer } from './fake-server.ts';

const server = new FakeServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const KEY = 'sk-test-SECRET-123';
const model = (behaviour: string, run: string, extra: Record<string, unknown> = {}) =>
  new OpenAIRolloutModel(
    { model: 'm', baseUrl: server.url(behaviour, run), apiKey: KEY, backoffMs: 1, maxBackoffMs: 5, ...extra },
    { env: {} },
  );

async function failure(p: Promise<unknown>): Promise<RolloutError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RolloutError) return err;
    throw err;
  }
  throw new Error('expected a RolloutError');
}

describe('OpenAI-compatible client: success paths', () => {
  it('chat: n samples in one request, logprobs parsed, choices ordered by index', async () => {
    const m = model('ok', 'chat1', {
      temperature: 0.7,
      maxTokens: 64,
      stop: ['\n\n'],
      extraBody: { top_k: 20 },
    });
    const out = await m.generate({ prompt: 'What is 2+2?', n: 3, seed: 7 });
    expect(out.map((g) => g.text)).toEqual(['sample 0 seed 7', 'sample 1 seed 7', 'sample 2 seed 7']);
    expect(out.map((g) => g.logprobs)).toEqual([
      [-0.5, -0.25],
      [-0.5, -1.25],
      [-0.5, -2.25],
    ]);
    expect(out.map((g) => g.tokenTexts)).toEqual([
      ['sam', 'ple'],
      ['sam', 'ple'],
      ['sam', 'ple'],
    ]);
    expect(out.map((g) => g.tokens)).toEqual([[], [], []]);
    expect(out.map((g) => g.finishReason)).toEqual(['stop', 'stop', 'length']);
    const seen = server.seen('ok', 'chat1');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe('/v1/chat/completions');
    expect(seen[0]!.authorization).toBe(`Bearer ${KEY}`);
    expect(seen[0]!.body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'What is 2+2?' }],
      n: 3,
      temperature: 0.7,
      max_tokens: 64,
      stop: ['\n\n'],
      seed: 7,
      logprobs: true,
      top_k: 20,
      stream: false,
    });
    expect(m.stats()).toEqual({ requests: 1, attempts: 1, retries: 0, failures: 0, topUpRequests: 0 });
  });

  it('chat: sends messages as given and reads vLLM token ids when asked for them', async () => {
    const m = model('ok', 'chat2', { extraBody: { return_token_ids: true }, logprobs: false });
    const messages = [
      { role: 'system' as const, content: 'be brief' },
      { role: 'user' as const, content: 'hi' },
    ];
    const out = await m.generate({ messages, n: 2, temperature: 0 });
    expect(out.map((g) => [g.promptTokens, g.tokens, g.logprobs])).toEqual([
      [[1, 2, 3], [100, 201 - 1], []],
      [[1, 2, 3], [101, 201], []],
    ]);
    const body = server.seen('ok', 'chat2')[0]!.body;
    expect(body.messages).toEqual(messages);
    expect(body.temperature).toBe(0);
    expect('logprobs' in body).toBe(false);
  });

  it('completions: prompt, integer logprobs, token_logprobs and token_id:N tokens', async () => {
    const m = model('ok', 'cmpl1', { endpoint: 'completions' });
    const out = await m.generate({ prompt: 'Once upon', n: 2, maxTokens: 5 });
    expect(out).toEqual([
      {
        text: 'sample 0 seed none',
        promptTokens: [],
        tokens: [10, 20],
        logprobs: [-0.5, -0.25],
        tokenTexts: ['token_id:10', 'token_id:20'],
        finishReason: 'stop',
      },
      {
        text: 'sample 1 seed none',
        promptTokens: [],
        tokens: [11, 21],
        logprobs: [-0.5, -1.25],
        tokenTexts: ['token_id:11', 'token_id:21'],
        finishReason: 'length',
      },
    ]);
    const seen = server.seen('ok', 'cmpl1')[0]!;
    expect(seen.path).toBe('/v1/completions');
    expect(seen.body).toEqual({
      model: 'm',
      prompt: 'Once upon',
      n: 2,
      max_tokens: 5,
      logprobs: 1,
      stream: false,
    });
  });

  it('completions refuses a messages-only request', async () => {
    const m = model('ok', 'cmpl2', { endpoint: 'completions' });
    await expect(m.generate({ messages: [{ role: 'user', content: 'x' }], n: 1 })).rejects.toThrow(
      'openai:m: the completions endpoint needs a prompt, but the request has only messages (use endpoint: chat)',
    );
    expect(server.seen('ok', 'cmpl2')).toHaveLength(0);
  });

  it('n = 0 sends nothing', async () => {
    expect(await model('ok', 'zero').generate({ prompt: 'x', n: 0 })).toEqual([]);
    expect(server.seen('ok', 'zero')).toHaveLength(0);
  });

  it('supportsN: false sends n single requests with consecutive seeds', async () => {
    const out = await model('ok', 'non', { supportsN: false }).generate({ prompt: 'x', n: 3, seed: 7 });
    expect(out.map((g) => g.text)).toEqual(['sample 0 seed 7', 'sample 0 seed 8', 'sample 0 seed 9']);
    const seen = server.seen('ok', 'non');
    expect(seen.map((r) => [r.body.n, r.body.seed])).toEqual([
      [1, 7],
      [1, 8],
      [1, 9],
    ]);
  });

  it('tops up with single requests when the server ignores n', async () => {
    const m = model('ignore-n', 'a');
    const out = await m.generate({ prompt: 'x', n: 3, seed: 5 });
    expect(out.map((g) => g.text)).toEqual(['sample 0 seed 5', 'sample 0 seed 6', 'sample 0 seed 7']);
    expect(server.seen('ignore-n', 'a').map((r) => [r.body.n, r.body.seed])).toEqual([
      [3, 5],
      [1, 6],
      [1, 7],
    ]);
    expect(m.stats()).toMatchObject({ requests: 3, topUpRequests: 2 });
  });

  it('never has more than `concurrency` requests in flight', async () => {
    server.maxInFlight = 0;
    const m = model('slow-ok', 'conc', { concurrency: 2 });
    const outs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => m.generate({ prompt: `p${i}`, n: 1 })),
    );
    expect(outs.flat()).toHaveLength(6);
    expect(server.seen('slow-ok', 'conc')).toHaveLength(6);
    expect(server.maxInFlight).toBeGreaterThanOrEqual(1);
    expect(server.maxInFlight).toBeLessThanOrEqual(2);
    expect(m.inFlight).toBe(0);
  });
});

describe('OpenAI-compatible client: failures', () => {
  it('timeout: retried, then a timeout error with the attempt count', async () => {
    const err = await failure(
      model('hang', 't1', { timeoutMs: 100, retries: 1 }).generate({ prompt: 'x', n: 1 }),
    );
    expect(err.kind).toBe('timeout');
    expect(err.attempts).toBe(2);
    expect(err.status).toBeUndefined();
    expect(err.message).toBe(
      `timeout error from POST ${server.url('hang', 't1')}/chat/completions after 2 attempts: no complete response within 100 ms`,
    );
    expect(server.seen('hang', 't1')).toHaveLength(2);
  });

  it('500 then 200: the retry succeeds', async () => {
    const m = model('fail-once', 'r1', { retries: 2 });
    const out = await m.generate({ prompt: 'x', n: 2 });
    expect(out.map((g) => g.text)).toEqual(['sample 0 seed none', 'sample 1 seed none']);
    expect(server.seen('fail-once', 'r1')).toHaveLength(2);
    expect(m.stats()).toEqual({ requests: 1, attempts: 2, retries: 1, failures: 0, topUpRequests: 0 });
  });

  it('5xx every time: http error after retries + 1 attempts', async () => {
    const err = await failure(model('always-500', 'r2', { retries: 2 }).generate({ prompt: 'x', n: 1 }));
    expect([err.kind, err.status, err.attempts]).toEqual(['http', 503, 3]);
    expect(err.message).toContain('HTTP 503: {"error":{"message":"unavailable"}}');
    expect(server.seen('always-500', 'r2')).toHaveLength(3);
  });

  it('429 is retried (Retry-After honoured)', async () => {
    const out = await model('rate-limit-once', 'r3').generate({ prompt: 'x', n: 1 });
    expect(out).toHaveLength(1);
    expect(server.seen('rate-limit-once', 'r3')).toHaveLength(2);
  });

  it('4xx is not retried', async () => {
    const err = await failure(model('bad-request', 'r4', { retries: 3 }).generate({ prompt: 'x', n: 1 }));
    expect([err.kind, err.status, err.attempts]).toEqual(['http', 400, 1]);
    expect(err.message).toContain('max_tokens is too large');
    expect(server.seen('bad-request', 'r4')).toHaveLength(1);
  });

  it('malformed JSON: malformed error, not retried', async () => {
    const err = await failure(model('malformed', 'm1').generate({ prompt: 'x', n: 1 }));
    expect([err.kind, err.status, err.attempts]).toEqual(['malformed', 200, 1]);
    expect(err.message).toContain('response is not JSON: {"choices": [{"message":');
    expect(server.seen('malformed', 'm1')).toHaveLength(1);
  });

  it('200 with no choices: empty error', async () => {
    const err = await failure(model('no-choices', 'e1').generate({ prompt: 'x', n: 1 }));
    expect([err.kind, err.status, err.attempts]).toEqual(['empty', 200, 1]);
    expect(err.message).toMatch(/: response has no choices$/);
    const err2 = await failure(model('missing-choices', 'e2').generate({ prompt: 'x', n: 1 }));
    expect(err2.kind).toBe('empty');
  });

  it('a body of the wrong shape is malformed, with the offending path', async () => {
    const err = await failure(model('bad-shape', 'b1').generate({ prompt: 'x', n: 1 }));
    expect(err.kind).toBe('malformed');
    expect(err.message).toContain('unexpected chat response: choices.0.message:');
  });

  it('socket closed by the server: network error after every attempt', async () => {
    const err = await failure(model('close', 'c1', { retries: 2 }).generate({ prompt: 'x', n: 1 }));
    expect([err.kind, err.status, err.attempts]).toEqual(['network', undefined, 3]);
    expect(server.seen('close', 'c1')).toHaveLength(3);
  });

  it('connection refused: network error', async () => {
    const dead = new FakeServer();
    await dead.start();
    const url = dead.url('ok', 'x');
    await dead.stop();
    const m = new OpenAIRolloutModel({ model: 'm', baseUrl: url, retries: 1, backoffMs: 1 }, { env: {} });
    const err = await failure(m.generate({ prompt: 'x', n: 1 }));
    expect([err.kind, err.attempts]).toEqual(['network', 2]);
    expect(err.message).toContain('ECONNREFUSED');
  });

  it("the caller's abort is passed through, not wrapped or retried", async () => {
    const ac = new AbortController();
    const p = model('hang', 'abort1', { retries: 5 }).generate({ prompt: 'x', n: 1, signal: ac.signal });
    setTimeout(() => ac.abort(new Error('stop now')), 30);
    await expect(p).rejects.toThrow('stop now');
    expect(server.seen('hang', 'abort1').length).toBeLessThanOrEqual(1);
  });

  it('a request that fails for good cancels its siblings', async () => {
    const m = model('fail-seed-1', 's1', { supportsN: false, timeoutMs: 50_000 });
    const err = await failure(m.generate({ prompt: 'x', n: 3, seed: 0 }));
    expect([err.kind, err.status, err.attempts]).toEqual(['http', 400, 1]);
    // The hanging siblings were aborted (not left to the 50 s timeout) and gave their slots back.
    await vi.waitFor(() => expect(m.inFlight).toBe(0));
    expect(m.stats()).toMatchObject({ requests: 3, attempts: 3, failures: 1, retries: 0 });
  });

  it('never reveals the API key', async () => {
    const m = model('echo-auth', 'k1');
    const err = await failure(m.generate({ prompt: 'x', n: 1 }));
    expect(err.status).toBe(401);
    expect(err.message).toContain('bad key Bearer ***');
    expect(err.message).not.toContain(KEY);
    expect(inspect(m, { depth: 5 })).not.toContain(KEY);
    expect(JSON.stringify(m.config)).not.toContain(KEY);
    expect(m.config.apiKey).toBe('***');
  });
});

describe('config', () => {
  it('fills baseUrl and apiKey from the environment, else the local default', () => {
    const fromEnv = resolveOpenAIConfig(
      { model: 'm' },
      { env: { OPENAI_BASE_URL: 'http://10.0.0.5:9000/v1/', OPENAI_API_KEY: 'k' } },
    );
    expect([fromEnv.baseUrl, fromEnv.apiKey]).toEqual(['http://10.0.0.5:9000/v1', 'k']);
    const plain = resolveOpenAIConfig({ model: 'm' }, { env: { OPENAI_API_KEY: '' } });
    expect([plain.baseUrl, plain.apiKey]).toEqual([DEFAULT_BASE_URL, undefined]);
    expect(plain).toMatchObject({
      endpoint: 'chat',
      timeoutMs: 120_000,
      retries: 3,
      concurrency: 16,
      supportsN: true,
      logprobs: true,
      extraBody: {},
    });
    const explicit = resolveOpenAIConfig(
      { model: 'm', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: 'x' },
      { env: { OPENAI_BASE_URL: 'http://elsewhere/v1', OPENAI_API_KEY: 'k' } },
    );
    expect([explicit.baseUrl, explicit.apiKey]).toEqual(['http://127.0.0.1:11434/v1', 'x']);
  });

  it('reports bad values with their config path', () => {
    expect(() =>
      resolveOpenAIConfig({ model: 'm', concurrency: 0 }, { env: {}, path: 'explorer.model' }),
    ).toThrow(ConfigError);
    expect(() =>
      resolveOpenAIConfig({ model: 'm', endpoint: 'responses' }, { env: {}, path: 'explorer.model' }),
    ).toThrow(/^explorer\.model\.endpoint: /);
    expect(() => resolveOpenAIConfig({ model: 'm', timeout: 5 }, { env: {} })).toThrow(/^model: .*timeout/);
    expect(() => resolveOpenAIConfig({ model: 'm' }, { env: { OPENAI_BASE_URL: 'not a url' } })).toThrow(
      "model.baseUrl: OPENAI_BASE_URL is not a URL: 'not a url'",
    );
  });
});
