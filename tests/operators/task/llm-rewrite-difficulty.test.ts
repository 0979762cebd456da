import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { taskContentId } from '../../../src/core/ids.ts';
import { hashSeed } from '../../../src/core/rng.ts';
import { llmDifficultyOp } from '../../../src/operators/task/llm-difficulty.ts';
import { llmRewriteOp } from '../../../src/operators/task/llm-rewrite.ts';
import { tempDir } from '../../helpers/tmp.ts';
import { ids, reasons, run, task } from './helpers.ts';
import { ScriptedLlmServer, type ScriptedReply, type ScriptedRequest } from './scripted-llm-server.ts';

const PARAPHRASE = 'Tom owns 3 apples and gets 2 more. How many apples does he own now?';

function replies(req: ScriptedRequest): ScriptedReply {
  const p = req.prompt;
  if (p.startsWith('Rewrite') && p.includes('apples'))
    return { contents: [` ${PARAPHRASE}\n`, '   ', PARAPHRASE] };
  if (p.startsWith('Solve') && p.includes('apples'))
    return { contents: ['3 + 2 = 5\n#### 5', '#### 6', 'The answer is 5.', 'no idea'] };
  if (p.startsWith('Solve') && p.includes('capital')) return { contents: ['Paris', ' paris ', 'Lyon'] };
  if (p.includes('failing')) return { status: 503, raw: '{"error":"unavailable"}' };
  return { contents: Array.from({ length: req.body.n ?? 1 }, () => 'nothing') };
}

const server = new ScriptedLlmServer(replies);
beforeAll(() => server.start());
afterAll(() => server.stop());

const model = (name: string) => ({
  model: name,
  baseUrl: server.url,
  apiKey: 'test-key',
  retries: 1,
  backoffMs: 1,
  maxBackoffMs: 2,
  timeoutMs: 2000,
  logprobs: false,
});

describe('llm_rewrite', () => {
  it('emits distinct non-empty paraphrases as variants that keep the answer; skips chat and unanswered tasks', async () => {
    const cacheDir = join(tempDir(), 'cache');
    const parent = task('a', 'Tom has 3 apples and buys 2. How many apples?', {
      answer: '5',
      meta: { source: 'gsm8k' },
    });
    const chat = task('c', 'unused', {
      prompt: undefined,
      messages: [{ role: 'user', content: 'hi' }],
      answer: '1',
    });
    const noAnswer = task('n', 'Tell me about apples.');
    const empty = task('e', '', { answer: '2' });
    const failing = task('f', 'A failing question', { answer: '2' });
    const before = server.requests.length;
    const params = { model: model('rewriter-1'), cacheDir, variants: 3 };
    const out = await run(llmRewriteOp, params, [parent, chat, noAnswer, empty, failing]);
    const childId = taskContentId({ prompt: PARAPHRASE, answer: '5' });
    expect(ids(out.rows)).toEqual(['a', childId, 'c', 'n']);
    expect(out.rows[1]).toEqual({
      ...parent,
      id: childId,
      prompt: PARAPHRASE,
      meta: { source: 'gsm8k', augmented: true, parentId: 'a', rewrittenBy: 'rewriter-1' },
    });
    expect(reasons(out)).toEqual([
      ['e', 'llm_rewrite: empty prompt, nothing to rewrite'],
      [
        'f',
        `llm_rewrite: model call failed: http error from POST ${server.url}/chat/completions after 2 attempts: HTTP 503: {"error":"unavailable"}`,
      ],
    ]);
    expect(out.metrics).toEqual({
      tasks_not_rewritable: 2,
      variants_emitted: 1,
      variants_skipped: 2,
      llm_requests: 2,
      llm_cache_hits: 0,
      llm_prompt_tokens: 10,
      llm_completion_tokens: 9,
    });
    // One request with n = 3 for the parent, seeded from the task id; two attempts for the failing row.
    const sent = server.requests.slice(before);
    expect(sent.length).toBe(3);
    const first = sent.find((r) => r.prompt.includes('apples'))!;
    expect(first.body.n).toBe(3);
    expect(first.body.seed).toBe(hashSeed(0, 'a'));
    expect(first.body.temperature).toBe(0.7);
    expect(first.prompt).toContain('its answer stays exactly 5');

    const count = server.requests.length;
    const again = await run(llmRewriteOp, params, [parent]);
    expect(server.requests.length).toBe(count);
    expect(again.rows).toEqual(out.rows.slice(0, 2));
  });
});

describe('llm_difficulty', () => {
  it('writes the pass rate of k samples under the math reward into features; a re-run sends nothing', async () => {
    const cacheDir = join(tempDir(), 'cache');
    const tasks = [
      task('a', 'Tom has 3 apples and buys 2. How many apples?', { answer: '5', features: { words: 9 } }),
      task('u', 'No answer here'),
      task('f', 'A failing question', { answer: '1' }),
    ];
    const params = {
      model: model('solver-1'),
      cacheDir,
      k: 4,
      prices: { promptPer1k: 0.5, completionPer1k: 1 },
    };
    const before = server.requests.length;
    const out = await run(llmDifficultyOp, params, tasks);
    expect(out.rows).toEqual([{ ...tasks[0], features: { words: 9, pass_rate: 0.5 } }]);
    expect(reasons(out)).toEqual([
      ['u', 'llm_difficulty: task has no reference answer to score samples against'],
      [
        'f',
        `llm_difficulty: model call failed: http error from POST ${server.url}/chat/completions after 2 attempts: HTTP 503: {"error":"unavailable"}`,
      ],
    ]);
    expect(out.metrics).toEqual({
      samples: 4,
      samples_passed: 2,
      llm_requests: 2,
      llm_cache_hits: 0,
      llm_prompt_tokens: 10,
      llm_completion_tokens: 12,
      llm_cost: expect.closeTo(0.017, 9),
    });
    const sent = server.requests.slice(before).find((r) => r.prompt.includes('apples'))!;
    expect(sent.body.n).toBe(4);
    expect(sent.body.temperature).toBe(1);

    const count = server.requests.length;
    const again = await run(llmDifficultyOp, params, [tasks[0]!]);
    expect(server.requests.length).toBe(count);
    expect(again.rows).toEqual(out.rows);
    expect(again.metrics.llm_cache_hits).toBe(1);
  });

  it('scores with exact_match (trimmed, optionally case-insensitive) into a named feature', async () => {
    const t = task('p', 'What is the capital of France?', { answer: 'Paris' });
    const base = { model: model('solver-1'), cacheDir: null, k: 3, feature: 'solve_rate' };
    const strict = await run(llmDifficultyOp, { ...base, reward: { type: 'exact_match' } }, [t]);
    expect(strict.rows[0]!.features).toEqual({ solve_rate: 1 / 3 });
    const loose = await run(
      llmDifficultyOp,
      { ...base, reward: { type: 'exact_match', caseSensitive: false } },
      [t],
    );
    expect(loose.rows[0]!.features).toEqual({ solve_rate: 2 / 3 });
  });

  it('rejects unknown params and a bad reward type at config time', () => {
    expect(llmDifficultyOp.params.safeParse({ model: model('m'), kk: 3 }).success).toBe(false);
    expect(llmDifficultyOp.params.safeParse({ model: model('m'), reward: { type: 'bleu' } }).success).toBe(
      false,
    );
    expect(llmDifficultyOp.params.safeParse({ model: { model: 'm', base_url: 'x' } }).success).toBe(false);
  });
});
