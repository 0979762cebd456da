import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rejected } from '../../src/core/rejected.ts';
import type { Task } from '../../src/core/task.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { type Spawned, spawnWinnow } from './harness.ts';

export interface PipelineOutcome extends Spawned {
  db: string;
  yaml: string;
  tasks: Task[];
  rejected: Rejected[];
  runStatus: string | undefined;
}

/** A small task pipeline over `input` (a path relative to `dir`): map id/question/answer, extract the answer. */
export function pipelineYaml(input: string, extra: string[] = []): string {
  return [
    'name: hostile',
    'input:',
    `  path: ${JSON.stringify(input)}`,
    'mapping:',
    '  taskset: hostile',
    '  id: id',
    '  prompt: question',
    '  answer: answer',
    'operators:',
    '  - op: extract_answer',
    '    params: { mode: gsm8k }',
    ...extra,
    '',
  ].join('\n');
}

/** Write the pipeline next to the data, run `winnow run` on it in a child process, read back what landed. */
export async function runPipeline(
  dir: string,
  name: string,
  input: string,
  opts: { args?: string[]; yaml?: string } = {},
): Promise<PipelineOutcome> {
  const yaml = join(dir, `${name}.yaml`);
  writeFileSync(yaml, opts.yaml ?? pipelineYaml(input));
  const db = join(dir, `db-${name}`);
  const r = await spawnWinnow(['run', yaml, '--db', db, ...(opts.args ?? [])]);
  const tasks = (await (await TaskStore.open(db)).read()).sort((a, b) => a.id.localeCompare(b.id));
  const rejected = (await (await RejectedStore.open(db)).read()).sort(
    (a, b) => a.row - b.row || a.step.localeCompare(b.step),
  );
  const runs = await (await RunTable.open(db)).list();
  return { ...r, db, yaml, tasks, rejected, runStatus: runs[runs.length - 1]?.status };
}

/** A JS stack trace in CLI output means an error escaped without a proper message. */
export const STACK_TRACE = /\n\s+at .+:\d+:\d+/;
