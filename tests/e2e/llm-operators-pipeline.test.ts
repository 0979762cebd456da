import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTaskReport } from '../../src/cli/run-report.ts';
import { headline } from '../../src/cli/runs-command.ts';
import { readRuns } from '../../src/inspect/run-views.ts';
import { runTaskPipelineFile } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { usageLine, usageOf } from '../../src/lifecycle/run/run-usage.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';
import { writeYaml } from '../lifecycle/rft-files.ts';
import { ScriptedLlmServer } from '../operators/task/scripted-llm-server.ts';

const server = new ScriptedLlmServer((req) => {
  const p = req.prompt;
  if (p.startsWith('You are grading'))
    return p.includes('garbled') ? { contents: ['{"score": oops'] } : { contents: ['{"score": 7}'] };
  // The solver gets 2+2 right every time and 3+3 right once in four.
  if (p.includes('2+2')) return { contents: ['#### 4', '#### 4', '#### 4', '#### 4'] };
  return { contents: ['#### 6', '#### 5', '#### 7', '#### 8'] };
});
beforeAll(() => server.start());
afterAll(() => server.stop());

describe('a task pipeline with llm_judge and llm_difficulty', () => {
  it('stores scores and pass rates as features, quarantines the malformed verdict, reports tokens per step, and re-runs from the cache', async () => {
    const dir = tempDir('winnow-llm-');
    writeFileSync(
      join(dir, 'qa.csv'),
      'id,question,answer\n1,What is 2+2?,4\n2,What is 3+3?,6\n3,A garbled question,1\n',
    );
    const model = { model: 'm', baseUrl: server.url, apiKey: 'k', retries: 0, logprobs: false };
    // Relative: resolved against the pipeline file's folder.
    const cacheDir = 'llm-cache';
    const file = writeYaml(join(dir, 'p.yaml'), {
      name: 'llm',
      input: { path: 'qa.csv' },
      mapping: { taskset: 'qa', id: 'id', prompt: 'question', answer: 'answer' },
      operators: [
        { op: 'llm_judge', params: { model, cacheDir, prices: { promptPer1k: 1 } } },
        { op: 'llm_difficulty', params: { model, cacheDir, k: 4 } },
      ],
    });
    const db = join(dir, 'db');
    const registry = taskOperatorRegistry();
    const report = await runTaskPipelineFile(file, { registry, dbDir: db });
    const judge = report.steps.find((s) => s.op === 'llm_judge')!;
    expect(judge.extra).toEqual({
      judged: 2,
      llm_requests: 3,
      llm_cache_hits: 0,
      llm_prompt_tokens: 30,
      llm_completion_tokens: 9,
      llm_cost: expect.closeTo(0.03, 9),
    });
    const difficulty = report.steps.find((s) => s.op === 'llm_difficulty')!;
    expect(difficulty.extra).toEqual({
      samples: 8,
      samples_passed: 5,
      llm_requests: 2,
      llm_cache_hits: 0,
      llm_prompt_tokens: 20,
      llm_completion_tokens: 24,
    });
    const tasks = await (await TaskStore.open(db)).read();
    expect(tasks.map((t) => [t.prompt, t.features]).sort()).toEqual([
      ['What is 2+2?', { llm_quality: 7, pass_rate: 1 }],
      ['What is 3+3?', { llm_quality: 7, pass_rate: 0.25 }],
    ]);
    const rejected = (await (await RejectedStore.open(db)).read()).filter((r) => r.step.includes('llm'));
    expect(rejected.map((r) => [r.step, r.reason])).toEqual([
      [
        'llm_judge',
        `llm_judge: malformed verdict: the judge's reply is neither JSON with a "score" nor a number: {"score": oops`,
      ],
    ]);

    // The run's model usage: printed after the run, in the report, and in the run record (winnow runs).
    expect(usageLine(usageOf(report.steps)!)).toBe(
      'LLM: 5 requests sent, 0 answered from cache, 50 prompt + 33 completion tokens, cost 0.0300',
    );
    const [record] = await readRuns(db);
    expect(headline(record!)).toBe('2 tasks landed; LLM 83 tokens, cost 0.0300');
    expect(formatTaskReport(report)).toContain('LLM: 5 requests sent');

    // One file per distinct request: 3 verdicts and 2 sample sets.
    const shards = readdirSync(join(dir, 'llm-cache'));
    expect(shards.flatMap((d) => readdirSync(join(dir, 'llm-cache', d))).length).toBe(5);
    expect(existsSync(join(process.cwd(), 'llm-cache'))).toBe(false);
    const sent = server.requests.length;
    const again = await runTaskPipelineFile(file, { registry, dbDir: join(dir, 'db2') });
    expect(server.requests.length).toBe(sent);
    expect(again.steps.find((s) => s.op === 'llm_judge')!.extra.llm_cache_hits).toBe(3);
    expect(again.steps.find((s) => s.op === 'llm_difficulty')!.extra.llm_requests).toBe(0);
  });
});
