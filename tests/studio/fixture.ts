import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { Task } from '../../src/core/task.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { RunTable } from '../../src/store/run-table.ts';
import { TaskStore } from '../../src/store/task-store.ts';
import { type StudioServer, startStudioServer } from '../../src/studio/studio-server.ts';
import { EXPERIENCES } from '../export/fixture.ts';

/**
 * A Studio database: 60 tasks (`t00`…`t59`; every 7th mentions apples; difficulty = i/100), the
 * export fixture's experience table `exps` (groups g1–g4, g2 a tie), two RFT runs with folders
 * (metrics over steps 1–3, configs differing in the sampler, both with the tiny model), and rejected rows from a JSONL file.
 */
export function studioTasks(n = 60): Task[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `t${String(i).padStart(2, '0')}`,
    taskset: i % 2 === 0 ? 'even' : 'odd',
    prompt: i % 7 === 0 ? `How many apples are ${i} plus ${i}?` : `Compute ${i} times two.`,
    answer: String(i * 2),
    features: { difficulty: i / 100 },
    meta: { source: 'fixture' },
    source: { file: 'input.jsonl', row: i + 1 },
  }));
}

export async function makeStudioDb(dir: string): Promise<{ db: string; runs: string }> {
  const db = join(dir, 'db');
  const runs = join(dir, 'runs');
  await (await TaskStore.open(db)).write(studioTasks(), 'pipeline-1');
  const buffer = await ExperienceBuffer.open(db, { table: 'exps' });
  await buffer.write(EXPERIENCES.map((e) => (e.taskId === 't1' ? { ...e, taskId: 't01' } : e)));
  await buffer.close();

  writeFileSync(
    join(dir, 'input.jsonl'),
    `${studioTasks(3)
      .map((t) => JSON.stringify(t))
      .join('\n')}\n{"broken\n`,
  );
  const rejected = await RejectedStore.open(db);
  rejected.add([
    {
      step: 'read:jsonl',
      reason: 'line 4: not JSON',
      file: 'input.jsonl',
      row: 4,
      rowId: '',
      payload: '{"broken',
      runId: 'pipeline-1',
    },
    {
      step: 'length_filter',
      reason: "prompt of 'a1' too short (3 < 5)",
      file: 'input.jsonl',
      row: 1,
      rowId: 'a1',
      payload: '{}',
      runId: 'pipeline-1',
    },
    {
      step: 'length_filter',
      reason: "prompt of 'a2' too short (2 < 5)",
      file: 'input.jsonl',
      row: 2,
      rowId: 'a2',
      payload: '{}',
      runId: 'pipeline-1',
    },
  ]);
  await rejected.flush();

  const runTable = await RunTable.open(db);
  const specs = [
    { id: 'fifo-1', sampler: 'fifo', acc: [0.33, 0.36, 0.4, 0.43] },
    { id: 'prio-1', sampler: 'version_priority', acc: [0.33, 0.38, 0.41, 0.45] },
  ];
  for (const [k, s] of specs.entries()) {
    const runDir = join(runs, s.id);
    mkdirSync(runDir, { recursive: true });
    const config = {
      name: s.id.split('-')[0],
      seed: 1,
      lifecycle: { steps: 3 },
      buffer: { sampler: { type: s.sampler } },
      explorer: { model: { type: 'tiny' } },
    };
    writeFileSync(
      join(runDir, 'run-config.json'),
      JSON.stringify({ runId: s.id, configHash: `h${k}`, config }),
    );
    writeFileSync(
      join(runDir, 'metrics.jsonl'),
      [1, 2, 3]
        .map((step) => JSON.stringify({ step, accuracy: s.acc[step], meanReward: step / 10 + k / 100 }))
        .join('\n'),
    );
    writeFileSync(
      join(runDir, 'run.json'),
      JSON.stringify({ steps: 3, initialAccuracy: s.acc[0], finalAccuracy: s.acc[3], durationMs: 1000 }),
    );
    await runTable.put({
      runId: s.id,
      kind: 'rft',
      name: config.name,
      configHash: `h${k}`,
      seed: 1,
      status: 'completed',
      startedAt: 1_700_000_000_000 + k,
      finishedAt: 1_700_000_100_000 + k,
      tableVersion: 1,
      summary: JSON.stringify({
        steps: 3,
        initialAccuracy: s.acc[0],
        finalAccuracy: s.acc[3],
        runDir,
        bufferTable: 'exps',
      }),
    });
  }
  return { db, runs };
}

export async function startFixtureStudio(
  dir: string,
  o: { db: string; runs: string; token?: string; readOnly?: boolean; user?: string },
): Promise<StudioServer> {
  return startStudioServer({
    dbDir: o.db,
    runsDir: o.runs,
    rootDir: dir,
    readOnly: o.readOnly ?? false,
    user: o.user ?? 'alice',
    host: '127.0.0.1',
    port: 0,
    token: o.token,
  });
}

/** GET or POST JSON; returns status and parsed body. */
export async function call(
  base: string,
  path: string,
  o: { body?: unknown; token?: string } = {},
): Promise<{
  status: number;
  body: Record<string, unknown> & { error?: string; field?: string; hint?: string };
}> {
  const headers: Record<string, string> = {};
  if (o.body !== undefined) headers['Content-Type'] = 'application/json';
  if (o.token) headers.Authorization = `Bearer ${o.token}`;
  const res = await fetch(new URL(path, base), {
    method: o.body === undefined ? 'GET' : 'POST',
    headers,
    ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
