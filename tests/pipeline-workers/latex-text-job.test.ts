import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import type { Task } from '../../src/core/task.ts';
import { OperatorGraph } from '../../src/operators/graph.ts';
import { buildGraph } from '../../src/operators/graph-spec.ts';
import { taskOperatorRegistry } from '../../src/operators/registries.ts';
import { planRowWise } from '../../src/pipeline-workers/row-wise-plan.ts';
import { applyTextReply, fromTextJob, toTextJob, toTextReply } from '../../src/pipeline-workers/text-job.ts';

// Issue 37's text maps are flagged row-wise and text-only (issue 38): a chain of them runs in a
// worker on the texts alone and must give the rows, drops and reasons of the whole-task run.
const STEPS = [
  { op: 'remove_latex_header', params: { field: 'all' } },
  { op: 'remove_latex_comments' },
  { op: 'expand_latex_macros' },
  { op: 'remove_bibliography' },
  { op: 'remove_table_text' },
  { op: 'remove_words_with_substrings' },
  { op: 'length_filter', params: { minWords: 3 } },
];

const PIECES = [
  '\\documentclass{article}\n\\newcommand{\\R}{\\mathbb{R}}\n',
  '\\section{Intro} Let $x \\in \\R$ be real. ',
  '% a comment line\n',
  'see www.example.com or http://x.org for more ',
  'a b c\td e f\tg h i\nj k l\tm n o\tp q r\n',
  '\\begin{thebibliography}{9}\\bibitem{k} Knuth\\end{thebibliography}',
  'plain words only here ',
];

function makeTasks(n: number, seed: number): Task[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const text = Array.from({ length: 1 + rng.int(5) }, () => PIECES[rng.int(PIECES.length)]!).join('');
    const base = { id: `t${i}`, taskset: 'w', features: {}, meta: { n: i }, source: { file: 'f', row: i } };
    return rng.float() < 0.3
      ? { ...base, messages: [{ role: 'user' as const, content: text }], answer: `${i}` }
      : { ...base, prompt: text, answer: `${i}` };
  });
}

describe('the LaTeX and word-substring maps as a worker text chain', () => {
  it('give exactly the rows, drops and reasons of the steps run on whole tasks', async () => {
    const registry = taskOperatorRegistry();
    const plan = planRowWise(STEPS, registry);
    expect(plan.workerSteps).toHaveLength(STEPS.length);
    expect(plan.textOnly).toBe(true);
    const graph = async () =>
      new OperatorGraph<Task>(await buildGraph<Task>(STEPS, { registry, baseDir: '.' }), { seed: 1 });
    const tasks = makeTasks(300, 7);
    const direct = await (await graph()).process(tasks);
    const sent = fromTextJob(structuredClone(toTextJob(tasks)));
    const back = applyTextReply(
      tasks,
      structuredClone(toTextReply(sent, await (await graph()).process(sent))),
    );
    expect(back.tasks.map((t) => JSON.stringify(t))).toEqual(direct.rows.map((t) => JSON.stringify(t)));
    expect(back.rejected.map((r) => [r.step, r.reason, JSON.stringify(r.row)])).toEqual(
      direct.rejected.map((r) => [r.step, r.reason, JSON.stringify(r.row)]),
    );
    // The chain both changed texts and dropped rows, so the comparison covers both.
    expect(direct.rows.length).toBeGreaterThan(50);
    expect(direct.rejected.length).toBeGreaterThan(20);
    expect(direct.rows.some((t) => t.prompt !== undefined && !tasks.some((u) => u.prompt === t.prompt))).toBe(
      true,
    );
  });
});
