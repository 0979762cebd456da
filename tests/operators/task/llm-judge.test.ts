import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { llmJudgeOp } from '../../../src/operators/task/llm-judge.ts';
import { parseJudgeReply } from '../../../src/operators/task/llm-judge-parse.ts';
import { tempDir } from '../../helpers/tmp.ts';
import { ids, reasons, run, task } from './helpers.ts';
import { ScriptedLlmServer, type ScriptedReply, type ScriptedRequest } from './scripted-llm-server.ts';

/** The judge's verdict for each task, keyed by a word of its prompt. */
function verdicts(req: ScriptedRequest): ScriptedReply {
  const p = req.prompt;
  if (p.includes('apples')) return { contents: ['{"score": 8, "reason": "clear and solvable"}'] };
  if (p.includes('locomotive')) return { contents: ['Here you go:\n```json\n{"score": 3}\n```'] };
  if (p.includes('marbles')) return { contents: ['Score: 6/10'] };
  if (p.includes('broken')) return { contents: ['{"score": '] };
  if (p.includes('chatty')) return { contents: ['I would say it is quite good overall.'] };
  if (p.includes('huge')) return { contents: ['{"score": 42}'] };
  return { contents: ['{"score": 5}'] };
}

const server = new ScriptedLlmServer(verdicts);
beforeAll(() => server.start());
afterAll(() => server.stop());

const model = () => ({
  model: 'judge-1',
  baseUrl: server.url,
  apiKey: 'test-key',
  retries: 2,
  backoffMs: 1,
  maxBackoffMs: 5,
  timeoutMs: 300,
  logprobs: false,
});

const tasks = () => [
  task('a', 'Tom has 3 apples and buys 2. How many apples?', { answer: '5' }),
  task('b', 'A locomotive goes 60 km/h for 2 h. How far?', { answer: '120' }),
  task('c', 'Ann has 4 marbles and loses 1. How many?', { answer: '3' }),
  task('d', 'A broken question', { answer: '1' }),
  task('e', 'A chatty judge question', { answer: '2' }),
  task('f', 'A huge score question', { answer: '2' }),
  task('g', '   ', { answer: '2' }),
];

describe('llm_judge', () => {
  it('scores tasks into features, quarantines malformed verdicts with the reason, and counts tokens and cost', async () => {
    const cacheDir = join(tempDir(), 'cache');
    const before = server.requests.length;
    const params = { model: model(), cacheDir, prices: { promptPer1k: 1, completionPer1k: 2 }, minScore: 4 };
    const out = await run(llmJudgeOp, params, tasks());
    expect(ids(out.rows)).toEqual(['a', 'c']);
    expect(out.rows.map((t) => t.features)).toEqual([{ llm_quality: 8 }, { llm_quality: 6 }]);
    expect(reasons(out)).toEqual([
      ['b', 'llm_judge: score 3 below minScore 4'],
      [
        'd',
        `llm_judge: malformed verdict: the judge's reply is neither JSON with a "score" nor a number: {"score":`,
      ],
      [
        'e',
        `llm_judge: malformed verdict: the judge's reply is neither JSON with a "score" nor a number: I would say it is quite good overall.`,
      ],
      ['f', 'llm_judge: malformed verdict: score 42 outside [0, 10]'],
      ['g', 'llm_judge: empty prompt, nothing to judge'],
    ]);
    // Six requests (the empty prompt sends none), 10 prompt + 3 completion tokens each.
    expect(server.requests.length - before).toBe(6);
    expect(out.metrics).toEqual({
      judged: 2,
      llm_requests: 6,
      llm_cache_hits: 0,
      llm_prompt_tokens: 60,
      llm_completion_tokens: 18,
      llm_cost: expect.closeTo(0.096, 9),
    });
    const sent = server.requests.at(-1)!.body;
    expect(sent.model).toBe('judge-1');
    expect(sent.temperature).toBe(0);
    expect(sent.max_tokens).toBe(256);

    // A re-run over the same cache folder sends nothing and gives the same rows and reasons.
    const count = server.requests.length;
    const again = await run(llmJudgeOp, params, tasks());
    expect(server.requests.length).toBe(count);
    expect(again.rows).toEqual(out.rows);
    expect(reasons(again)).toEqual(reasons(out));
    expect(again.metrics).toEqual({
      judged: 2,
      llm_requests: 0,
      llm_cache_hits: 6,
      llm_prompt_tokens: 0,
      llm_completion_tokens: 0,
      llm_cost: 0,
    });
  });

  it('keeps at most model.concurrency requests in flight and the batch order in its output', async () => {
    server.setScript((req) => ({ contents: [`{"score": ${req.prompt.match(/q(\d)/)![1]}}`], delayMs: 30 }));
    try {
      server.maxInFlight = 0;
      const batch = Array.from({ length: 8 }, (_, i) => task(`t${i}`, `Question q${i}`, { answer: '1' }));
      const out = await run(llmJudgeOp, { model: { ...model(), concurrency: 3 }, cacheDir: null }, batch);
      expect(ids(out.rows)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7']);
      expect(out.rows.map((t) => t.features.llm_quality)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(server.maxInFlight).toBe(3);
    } finally {
      server.setScript(verdicts);
    }
  });

  it('judges a 1 MB prompt, sending it whole', async () => {
    const big = `${'word '.repeat(200_000)}apples`;
    const out = await run(llmJudgeOp, { model: model(), cacheDir: null }, [
      task('big', big, { answer: '1' }),
    ]);
    expect(out.rows.map((t) => t.features.llm_quality)).toEqual([8]);
    expect(server.requests.at(-1)!.prompt).toContain(big);
  });

  it('retries server 500s, then quarantines the row with the reason; failures are not cached', async () => {
    const cacheDir = join(tempDir(), 'cache');
    server.setScript(() => ({ status: 500, raw: '{"error":{"message":"engine overloaded"}}' }));
    try {
      const before = server.requests.length;
      const out = await run(llmJudgeOp, { model: model(), cacheDir }, [
        task('a', 'apples?', { answer: '1' }),
      ]);
      expect(out.rows).toEqual([]);
      expect(reasons(out)).toEqual([
        [
          'a',
          `llm_judge: model call failed: http error from POST ${server.url}/chat/completions after 3 attempts: HTTP 500: {"error":{"message":"engine overloaded"}}`,
        ],
      ]);
      expect(server.requests.length - before).toBe(3);
      server.setScript(verdicts);
      const retried = await run(llmJudgeOp, { model: model(), cacheDir }, [
        task('a', 'apples?', { answer: '1' }),
      ]);
      expect(retried.rows.map((t) => t.features.llm_quality)).toEqual([8]);
      expect(server.requests.length - before).toBe(4);
    } finally {
      server.setScript(verdicts);
    }
  });

  it('retries timeouts, then quarantines the row with the reason', async () => {
    server.setScript((req) => (req.prompt.includes('slow') ? { hang: true } : verdicts(req)));
    try {
      const before = server.requests.length;
      const out = await run(
        llmJudgeOp,
        { model: { ...model(), retries: 1, timeoutMs: 100 }, cacheDir: null },
        [task('s', 'A slow question', { answer: '1' }), task('a', 'apples?', { answer: '1' })],
      );
      expect(ids(out.rows)).toEqual(['a']);
      expect(reasons(out)).toEqual([
        [
          's',
          `llm_judge: model call failed: timeout error from POST ${server.url}/chat/completions after 2 attempts: no complete response within 100 ms`,
        ],
      ]);
      expect(server.requests.length - before).toBe(3);
    } finally {
      server.setScript(verdicts);
    }
  });
});

describe('parseJudgeReply', () => {
  it('reads JSON, fenced JSON, JSON in prose and bare numbers; rejects the rest', () => {
    expect(parseJudgeReply('{"score": 7, "reason": "ok"}')).toEqual({ score: 7, reason: 'ok' });
    expect(parseJudgeReply('```json\n{"score": "4.5"}\n```')).toEqual({ score: 4.5 });
    expect(parseJudgeReply('My verdict: {"score": 2} as asked.')).toEqual({ score: 2 });
    expect(parseJudgeReply('9')).toEqual({ score: 9 });
    expect(parseJudgeReply('score = 3.5 / 10.')).toEqual({ score: 3.5 });
    expect(parseJudgeReply('')).toEqual({ error: 'the judge returned an empty reply' });
    expect(parseJudgeReply('{"quality": 5}')).toEqual({
      error: `the judge's JSON has no numeric "score": {"quality":5}`,
    });
    expect(parseJudgeReply('3 out of 10, 7 if generous')).toEqual({
      error: `the judge's reply is neither JSON with a "score" nor a number: 3 out of 10, 7 if generous`,
    });
  });
});
