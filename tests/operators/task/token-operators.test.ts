import { describe, expect, it } from 'vitest';
import type { Task } from '../../../src/core/task.ts';
import { OperatorGraph } from '../../../src/operators/graph.ts';
import { buildGraph } from '../../../src/operators/graph-spec.ts';
import type { OperatorDefinition, OperatorResult, TokenizerLoader } from '../../../src/operators/operator.ts';
import { taskOperatorRegistry } from '../../../src/operators/registries.ts';
import { chatTemplateOp } from '../../../src/operators/task/chat-template.ts';
import { tokenCountOp } from '../../../src/operators/task/token-count.ts';
import { tokenLengthFilterOp } from '../../../src/operators/task/token-length-filter.ts';
import { testTokenizerLoader } from '../../helpers/test-tokenizer.ts';
import { ids, makeCtx, reasons, task } from './helpers.ts';

const TOK = { package: 'test-tokenizer' };

/** Run `def` over the batches with the test tokenizer injected through the context. */
async function run<P>(
  def: OperatorDefinition<Task, P>,
  params: Record<string, unknown>,
  ...batches: Task[][]
): Promise<Required<OperatorResult<Task>>> {
  const op = def.create(def.params.parse({ tokenizer: TOK, ...params }));
  const ctx = { ...makeCtx(), baseDir: '/cfg', loadTokenizer: testTokenizerLoader().load };
  const out: Required<OperatorResult<Task>> = { rows: [], dropped: [], metrics: {} };
  for (const batch of batches) {
    const r = await op.process(batch, ctx);
    out.rows.push(...r.rows);
    out.dropped.push(...r.dropped);
    for (const [k, v] of Object.entries(r.metrics ?? {})) out.metrics[k] = (out.metrics[k] ?? 0) + v;
  }
  return out;
}

const SYS_USER =
  '<|im_start|>system\nSolve it.<|im_end|>\n<|im_start|>user\nWhat is 2 + 3?<|im_end|>\n<|im_start|>assistant\n';
const MULTI = [
  { role: 'user' as const, content: 'Hi' },
  { role: 'assistant' as const, content: 'Hello!' },
  { role: 'user' as const, content: 'Add 1 and 2' },
];
const MULTI_RENDERED =
  '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nAdd 1 and 2<|im_end|>\n<|im_start|>assistant\n';
/** A task the schema would refuse (no prompt, no messages), as a buggy upstream operator could emit. */
const bare = (id: string): Task => ({ id, taskset: 't', features: {}, meta: {} });

describe('chat_template', () => {
  it('renders system + user with the generation prompt and counts its tokens', async () => {
    const r = await run(chatTemplateOp, { system: 'Solve it.' }, [task('a', 'What is 2 + 3?')]);
    expect(r.rows).toEqual([
      { ...task('a', 'What is 2 + 3?'), meta: { renderedPrompt: SYS_USER }, features: { promptTokens: 17 } },
    ]);
    expect(r.metrics).toEqual({ promptTokens: 17 });
  });

  it('renders without the generation prompt, to a chosen meta key and feature', async () => {
    const r = await run(
      chatTemplateOp,
      { addGenerationPrompt: false, target: 'meta.chat.text', tokensFeature: 'chatTokens' },
      [task('a', 'Hi there')],
    );
    expect(r.rows[0]!.meta).toEqual({ chat: { text: '<|im_start|>user\nHi there<|im_end|>\n' } });
    expect(r.rows[0]!.features).toEqual({ chatTokens: 5 });
  });

  it('keeps a multi-turn task’s messages and renders all its turns; a system turn is not doubled', async () => {
    const multi = task('m', '', { prompt: undefined, messages: MULTI });
    delete multi.prompt;
    const withSys = {
      ...multi,
      id: 's',
      messages: [{ role: 'system' as const, content: 'Be brief.' }, ...MULTI],
    };
    const r = await run(chatTemplateOp, { system: 'Solve it.' }, [multi, withSys]);
    expect(r.rows.map((t) => t.messages)).toEqual([MULTI, withSys.messages]);
    expect(r.rows[0]!.meta.renderedPrompt).toBe(`<|im_start|>system\nSolve it.<|im_end|>\n${MULTI_RENDERED}`);
    expect(r.rows[1]!.meta.renderedPrompt).toBe(`<|im_start|>system\nBe brief.<|im_end|>\n${MULTI_RENDERED}`);
    expect(r.rows.map((t) => t.features.promptTokens)).toEqual([24, 24]);
    expect(r.metrics).toEqual({ promptTokens: 48 });
  });

  it('builds the user turn from a field template', async () => {
    const t = task('q', 'Pick one.', { meta: { choices: ['red', 'blue'] } });
    const r = await run(chatTemplateOp, { template: '{prompt}\nChoices: {meta.choices}' }, [t]);
    expect(r.rows[0]!.meta.renderedPrompt).toBe(
      '<|im_start|>user\nPick one.\nChoices: red\nblue<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(r.rows[0]!.features.promptTokens).toBe(12);
  });

  it('drops tasks with nothing to render, each with its reason (hostile: empty, no prompt or messages)', async () => {
    const r = await run(chatTemplateOp, { template: '{prompt} {meta.choices}' }, [
      task('ok', 'x', { meta: { choices: 'a' } }),
      task('nochoice', 'x'),
    ]);
    expect(ids(r.rows)).toEqual(['ok']);
    expect(reasons(r)).toEqual([['nochoice', 'nothing to render: template: missing meta.choices']]);
    const r2 = await run(chatTemplateOp, {}, [
      task('empty', ''),
      task('blank', '  \n '),
      bare('bare'),
      { ...bare('silent'), messages: [{ role: 'user', content: '' }] },
    ]);
    expect(r2.rows).toEqual([]);
    expect(reasons(r2)).toEqual([
      ['empty', 'nothing to render: empty prompt'],
      ['blank', 'nothing to render: empty prompt'],
      ['bare', 'nothing to render: the task has no prompt or messages'],
      ['silent', 'nothing to render: every message is empty'],
    ]);
    expect(r2.metrics).toEqual({ promptTokens: 0 });
  });

  it('renders a 1 MB prompt whole (hostile)', async () => {
    const big = 'word '.repeat(200_000);
    const r = await run(chatTemplateOp, {}, [task('big', big)]);
    expect(r.rows[0]!.features.promptTokens).toBe(200_005);
    expect((r.rows[0]!.meta.renderedPrompt as string).length).toBe(1_000_000 + 50);
  });

  it('refuses bad params with the key at fault', () => {
    const bad = (p: Record<string, unknown>) =>
      chatTemplateOp.params
        .safeParse({ tokenizer: TOK, ...p })
        .error?.issues.map((i) => [i.path.join('.'), i.message]);
    expect(bad({ template: 'x {meta.a' })).toEqual([['template', "bad template: unclosed '{' at offset 2"]]);
    expect(bad({ target: 'features.x' })).toEqual([['target', 'must name a meta key (meta.<key>)']]);
    expect(chatTemplateOp.params.safeParse({}).success).toBe(false);
  });
});

describe('token_length_filter', () => {
  const batch = [
    task('two', 'a b', { answer: '42' }),
    task('four', 'a b c d'),
    task('seven', 'a b c d e f g'),
  ];

  it('keeps prompts within [minTokens, maxTokens]; reasons keep the concrete counts', async () => {
    const r = await run(tokenLengthFilterOp, { minTokens: 3, maxTokens: 6 }, batch);
    expect(ids(r.rows)).toEqual(['four']);
    expect(reasons(r)).toEqual([
      ['two', 'prompt has 2 tokens < min 3'],
      ['seven', 'prompt has 7 tokens > max 6'],
    ]);
    expect(r.metrics).toEqual({ tokensKept: 4, tokensDropped: 9 });
  });

  it('measures the answer (missing = 0 tokens) and the rendered prompt', async () => {
    const r = await run(tokenLengthFilterOp, { field: 'answer', minTokens: 1 }, batch);
    expect(ids(r.rows)).toEqual(['two']);
    expect(reasons(r)).toEqual([
      ['four', 'answer has 0 tokens < min 1'],
      ['seven', 'answer has 0 tokens < min 1'],
    ]);
    const rendered = (await run(chatTemplateOp, {}, batch)).rows;
    const r2 = await run(tokenLengthFilterOp, { field: 'rendered', maxTokens: 10 }, [
      ...rendered,
      task('raw', 'a'),
    ]);
    expect(ids(r2.rows)).toEqual(['two', 'four']);
    expect(reasons(r2)).toEqual([
      ['seven', 'rendered prompt has 12 tokens > max 10'],
      ['raw', 'no rendered prompt at meta.renderedPrompt (run chat_template first)'],
    ]);
  });

  it('hostile: empty prompt, 1 MB prompt, a task without prompt or messages', async () => {
    const r = await run(tokenLengthFilterOp, { minTokens: 1, maxTokens: 512 }, [
      task('empty', ''),
      task('big', 'word '.repeat(200_000)),
      bare('bare'),
    ]);
    expect(r.rows).toEqual([]);
    expect(reasons(r)).toEqual([
      ['empty', 'prompt has 0 tokens < min 1'],
      ['big', 'prompt has 200000 tokens > max 512'],
      ['bare', 'prompt has 0 tokens < min 1'],
    ]);
  });

  it('refuses minTokens > maxTokens', () => {
    const res = tokenLengthFilterOp.params.safeParse({ tokenizer: TOK, minTokens: 9, maxTokens: 3 });
    expect(res.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['minTokens', 'minTokens must not exceed maxTokens'],
    ]);
  });
});

describe('token_count', () => {
  it('writes counts as features, named by field unless told', async () => {
    const t = task('a', 'What is 2 + 3?', { answer: '5' });
    expect((await run(tokenCountOp, {}, [t])).rows[0]!.features).toEqual({ promptTextTokens: 6 });
    const a = await run(tokenCountOp, { field: 'answer', feature: 'ansTok' }, [t, task('b', 'x')]);
    expect(a.rows.map((x) => x.features)).toEqual([{ ansTok: 1 }, { ansTok: 0 }]);
    expect(a.metrics).toEqual({ ansTok: 1 });
    const rendered = (await run(chatTemplateOp, {}, [t])).rows;
    const r = await run(tokenCountOp, { field: 'rendered' }, [{ ...rendered[0]!, features: {} }, t]);
    expect(r.rows.map((x) => x.features)).toEqual([{ promptTokens: 11 }]);
    expect(reasons(r)).toEqual([
      ['a', 'no rendered prompt at meta.renderedPrompt (run chat_template first)'],
    ]);
  });

  it('hostile: empty text and 1 MB text', async () => {
    const r = await run(tokenCountOp, {}, [task('e', ''), task('big', '€'.repeat(1_000_000))]);
    expect(r.rows.map((x) => x.features.promptTextTokens)).toEqual([0, 1_000_000]);
  });
});

describe('token-aware operators in a graph', () => {
  it('load the tokenizer once, lazily, with the graph’s baseDir; tokens land in step metrics', async () => {
    const { load, calls } = testTokenizerLoader();
    const nodes = await buildGraph<Task>(
      [
        { op: 'chat_template', params: { tokenizer: { path: './tok' } } },
        {
          op: 'token_length_filter',
          params: { tokenizer: { path: './tok' }, field: 'rendered', maxTokens: 8 },
        },
      ],
      { registry: taskOperatorRegistry(), baseDir: '/cfg' },
    );
    expect(calls).toEqual([]);
    const graph = new OperatorGraph<Task>(nodes, { seed: 1, baseDir: '/cfg', loadTokenizer: load });
    const a = await graph.process([task('a', 'x y'), task('b', 'x y z w')]);
    const b = await graph.process([task('c', 'x')]);
    expect([...ids(a.rows), ...ids(b.rows)]).toEqual(['a', 'c']);
    expect(a.rejected.map((r) => [r.step, r.reason])).toEqual([
      ['token_length_filter', 'rendered prompt has 9 tokens > max 8'],
    ]);
    expect(calls).toEqual([
      { spec: { path: './tok' }, baseDir: '/cfg' },
      { spec: { path: './tok' }, baseDir: '/cfg' },
    ]);
    expect(graph.metrics().map((m) => [m.step, m.extra])).toEqual([
      ['chat_template', { promptTokens: 22 }],
      ['token_length_filter', { tokensKept: 13, tokensDropped: 9 }],
    ]);
  });

  it('retry a failed tokenizer load on the next batch', async () => {
    let n = 0;
    const { load: ok } = testTokenizerLoader();
    const load: TokenizerLoader = async (spec, opts) => {
      if (++n === 1) throw new Error('no tokenizer.json in /cfg/tok');
      return ok(spec, opts);
    };
    const op = chatTemplateOp.create(chatTemplateOp.params.parse({ tokenizer: TOK }));
    const ctx = { ...makeCtx(), loadTokenizer: load };
    await expect(op.process([task('a', 'x')], ctx)).rejects.toThrow('no tokenizer.json in /cfg/tok');
    expect(ids((await op.process([task('a', 'x')], ctx)).rows)).toEqual(['a']);
  });
});
