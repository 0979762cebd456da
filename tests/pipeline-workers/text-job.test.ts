import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { runTaskPipeline } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { TaskPipelineConfigSchema } from '../../src/lifecycle/pipeline/task-pipeline-config.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { buildGraph } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { keptProfile, scanAscii } from '../../src/operators/task/text-profile.ts';
import { planRowWise } from '../../src/pipeline-workers/row-wise-plan.ts';
import { applyTextReply, fromTextJob, toTextJob, toTextReply } from '../../src/pipeline-workers/text-job.ts';
import { textOnlyRegistry } from '../../src/pipeline-workers/text-only-registry.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { tempDir } from '../helpers/tmp.ts';

// Text-only steps on every text a task can have: the prompt, chat messages, the answer.
const TEXT_STEPS = [
  { op: 'strip_html', params: { field: 'all' } },
  { op: 'normalize_whitespace', params: { field: 'answer' } },
  { op: 'normalize_unicode', params: { form: 'NFKC' } },
  { op: 'normalize_whitespace' },
  { op: 'length_filter', params: { minWords: 4 } },
  { op: 'special_char_ratio_filter', params: { maxRatio: 0.25, field: 'all' } },
];

const WORDS = 'apple basket dozen eggs farmer ﬁsh garden hours <b>bold</b> &amp; market'.split(' ');

function makeTasks(n: number, seed: number): Task[] {
  const rng = new Rng(seed);
  const out: Task[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 1 + rng.int(9) }, () => WORDS[rng.int(WORDS.length)]!);
    const text = rng.float() < 0.2 ? `  ${words.join('   ')} !!!` : words.join(' ');
    const base = {
      id: `t${i}`,
      taskset: 'w',
      features: { k: i },
      meta: { n: i },
      source: { file: 'f', row: i },
    };
    if (rng.float() < 0.15)
      out.push({ ...base, messages: [{ role: 'user', content: text }], answer: ` ${i}\n\n\n${i} ` });
    else if (rng.float() < 0.5) out.push({ ...base, prompt: text, answer: `  <i>${i}</i>  ` });
    else out.push({ ...base, prompt: text });
  }
  return out;
}

describe('text jobs: a worker sees only the texts, the main thread keeps its own rows', () => {
  it('give exactly the rows (key order included), drops and reasons of the steps run on whole tasks', async () => {
    const registry = taskOperatorRegistry();
    expect(planRowWise(TEXT_STEPS, registry).textOnly).toBe(true);
    const graph = async () =>
      new OperatorGraph<Task>(await buildGraph<Task>(TEXT_STEPS, { registry, baseDir: '.' }), { seed: 1 });
    const tasks = makeTasks(400, 3);
    const direct = await (await graph()).process(tasks);
    // What a worker does (after a structured clone each way), then what the main thread does.
    const sent = fromTextJob(structuredClone(toTextJob(tasks)));
    const reply = structuredClone(toTextReply(sent, await (await graph()).process(sent)));
    const back = applyTextReply(tasks, reply);
    expect(back.tasks.map((t) => JSON.stringify(t))).toEqual(direct.rows.map((t) => JSON.stringify(t)));
    expect(back.rejected.map((r) => [r.step, r.reason, JSON.stringify(r.row)])).toEqual(
      direct.rejected.map((r) => [r.step, r.reason, JSON.stringify(r.row)]),
    );
    // The profiles the worker's steps made ride back: each equals a fresh scan of the row's prompt.
    const profiled = back.tasks.filter((t) => t.prompt !== undefined && keptProfile(t, t.prompt));
    expect(profiled.length).toBeGreaterThan(50);
    // (a packed profile leaves out the dedup key hash: exact_dedup takes the worker's own hashes).
    const anyHash = { dedupKey: expect.any(Number), dedupCheck: expect.any(Number) };
    for (const t of profiled)
      expect(keptProfile(t, t.prompt!)).toEqual({ ...scanAscii(t.prompt!), ...anyHash });
    // Unchanged rows are the main thread's own objects; the changes cover prompts, messages, answers.
    expect(back.tasks.filter((t) => tasks.includes(t)).length).toBeGreaterThan(10);
    expect(reply.changes.some((c) => 'prompt' in c)).toBe(true);
    expect(reply.changes.some((c) => 'messages' in c)).toBe(true);
    expect(reply.changes.some((c) => 'answer' in c)).toBe(true);
    expect(direct.rejected.length).toBeGreaterThan(40);
    expect(direct.rows.length).toBeGreaterThan(100);
  });

  it("a text chain's worker loads a registry of exactly the text-only operators, the built-in definitions", () => {
    const light = textOnlyRegistry();
    const builtIn = taskOperatorRegistry();
    const flagged = builtIn
      .all()
      .filter((d) => d.textOnly === true)
      .map((d) => d.name);
    expect(light.names()).toEqual(flagged);
    for (const name of flagged) expect(light.get(name)).toBe(builtIn.get(name));
  });

  it('only text-only steps make a text chain', () => {
    const registry = taskOperatorRegistry();
    expect(planRowWise([{ op: 'strip_html' }, { op: 'exact_dedup' }], registry).textOnly).toBe(true);
    expect(planRowWise([{ op: 'exact_dedup' }], registry).textOnly).toBe(true);
    expect(planRowWise([{ op: 'map_fields', params: { prompt: '{meta.q}' } }], registry).textOnly).toBe(
      false,
    );
    expect(planRowWise([{ op: 'strip_html' }, { op: 'require_answer' }], registry).textOnly).toBe(false);
  });
});

describe('a pipeline run with workers lands what one without does', () => {
  const dir = tempDir('winnow-text-job-');
  const rng = new Rng(11);
  const lines: string[] = [];
  const questions: string[] = [];
  for (let i = 0; i < 900; i++) {
    const words = Array.from({ length: 1 + rng.int(12) }, () => WORDS[rng.int(WORDS.length)]!);
    let q = words.join(rng.float() < 0.2 ? '  ' : ' ');
    if (rng.float() < 0.08 && i > 0) q = questions[rng.int(questions.length)]!;
    questions.push(q);
    if (rng.float() < 0.01) lines.push('{"broken');
    else lines.push(JSON.stringify({ id: `r${i % 850}`, question: q, answer: ` <b>${i % 13}</b> ` }));
  }
  const file = join(dir, 'rows.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);

  async function run(workers: number, operators: unknown[], db: string) {
    const config = TaskPipelineConfigSchema.parse({
      name: 'text-job',
      workers,
      runsDir: join(db, 'runs'),
      input: { path: file, batchSize: 64 },
      mapping: { id: 'id', prompt: 'question', answer: 'answer', taskset: 'w' },
      operators,
      output: { commitRows: 300, maxRejectedShare: 1, report: false },
    });
    const report = await runTaskPipeline(config, {
      baseDir: dir,
      dbDir: db,
      registry: taskOperatorRegistry(),
    });
    // Every landed column but the run id and times; every rejected record with its payload.
    const tasks = (await (await TaskStore.open(db)).read()).map((t: Task) =>
      JSON.stringify([t.id, t.prompt, t.messages, t.answer, t.taskset, t.features, t.meta, t.source]),
    );
    const rejected = (await (await RejectedStore.open(db)).read()).map((r) =>
      JSON.stringify([r.step, r.file, r.row, r.rowId, r.reason, r.payload]),
    );
    return { tasks, rejected, steps: report.steps.map(({ ms: _ms, ...s }) => s), workers: report.workers };
  }

  it('text chain and a whole-record chain, first run and a second run into the same table', async () => {
    const chains = {
      text: [...TEXT_STEPS, { op: 'exact_dedup' }],
      records: [{ op: 'map_fields', params: { answer: '{answer}!' } }, ...TEXT_STEPS, { op: 'exact_dedup' }],
    };
    for (const [name, ops] of Object.entries(chains)) {
      const one = [await run(0, ops, join(dir, `${name}-0`)), await run(0, ops, join(dir, `${name}-0`))];
      const two = [await run(1, ops, join(dir, `${name}-1`)), await run(1, ops, join(dir, `${name}-1`))];
      expect([one[0]!.workers, two[0]!.workers]).toEqual([0, 1]);
      expect(one[0]!.tasks.length).toBeGreaterThan(300);
      expect(one[0]!.rejected.length).toBeGreaterThan(100);
      for (const k of [0, 1]) {
        expect(two[k]!.tasks).toEqual(one[k]!.tasks);
        expect(two[k]!.rejected).toEqual(one[k]!.rejected);
        expect(two[k]!.steps).toEqual(one[k]!.steps);
      }
    }
  }, 60_000);
});
