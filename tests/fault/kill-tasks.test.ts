import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.ts';
import { tempDir } from '../helpers/tmp.ts';
import { type KillPlan, spawnWinnow, tableRows, versionCount } from './harness.ts';

/**
 * Issue #6 item 1, task pipelines: `winnow run` is SIGKILLed at seeded random points — while it
 * reads and transforms the first batches, between and during its commits, and during the final
 * compaction and tagging — then simply run again. Writes are upserts on id, so the table must end
 * with exactly the (id, content) rows of an uninterrupted run: none missing, none duplicated.
 *
 * Kept lean and load-proof (issue 35): 12,000 rows in 1,000-row commits still give several commits
 * to aim at; kills are armed by files (a table's new version), never by elapsed time, and no test
 * depends on how fast the machine is: each has a wide timeout, as a slow run only takes longer.
 */
const dir = tempDir('winnow-kill-tasks-');
const ROWS = 12_000;
const COMMIT_ROWS = 1_000;
/** Per-test limit: a chain is up to 13 runs of a few seconds each on a quiet machine. */
const CHAIN_TIMEOUT_MS = 15 * 60_000;

/** A messy generated dataset: duplicate ids, repeated questions, broken lines, rows without an answer. */
function writeDataset(file: string, rows: number, tail = ''): void {
  const rng = new Rng(61);
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    if (i % 211 === 210) {
      lines.push(`{"id": "broken${i}", "question": "unterminated`);
      continue;
    }
    const a = rng.int(1000);
    const b = rng.int(1000);
    const id = i % 97 === 96 ? `t${i - 50}` : `t${i}`; // a later row reusing an earlier id
    const question =
      i % 89 === 88 ? `What is ${i - 1} plus ${i - 1}?` : `What is ${a}  plus ${b}? (case ${i})`;
    const answer = i % 151 === 150 ? 'no idea' : `${a} + ${b} = ${a + b}\n#### ${a + b}`;
    lines.push(JSON.stringify({ id, question, answer }));
  }
  writeFileSync(file, `${lines.join('\n')}\n${tail}`);
}

function writePipeline(file: string, input: string): void {
  writeFileSync(
    file,
    [
      'name: kill-tasks',
      'seed: 5',
      'input:',
      `  path: ${input}`,
      '  batchSize: 500',
      'mapping:',
      '  taskset: kill',
      '  id: id',
      '  prompt: question',
      '  answer: answer',
      'operators:',
      '  - op: normalize_whitespace',
      '  - op: extract_answer',
      '    params: { mode: gsm8k }',
      '  - op: exact_dedup',
      'output:',
      `  commitRows: ${COMMIT_ROWS}`,
      '',
    ].join('\n'),
  );
}

/** The table's content as sorted "id content_hash" lines. */
async function landed(db: string): Promise<string[]> {
  return (await tableRows(db, 'tasks')).map((r) => `${r.id} ${r.content_hash}`).sort();
}

const yaml = join(dir, 'pipeline.yaml');
let reference: string[] = [];
let commits = 0;

beforeAll(async () => {
  writeDataset(join(dir, 'data.jsonl'), ROWS);
  writePipeline(yaml, 'data.jsonl');
  const db = join(dir, 'db-reference');
  const r = await spawnWinnow(['run', yaml, '--db', db, '--quiet']);
  expect(r.code).toBe(0);
  reference = await landed(db);
  commits = versionCount(db, 'rejected') - 1;
}, CHAIN_TIMEOUT_MS);

type Phase = 'ingest' | 'write' | 'finish';

/**
 * Versions of the `rejected` table count a run's commits: every commit flushes the rows rejected
 * since the last one, and every batch of this dataset has some. (The task table's own versions
 * also count compactions.) A new database gets the table, empty, when the run starts.
 */
const commitsMade = (db: string, before: number) =>
  Math.max(0, versionCount(db, 'rejected') - Math.max(before, 1));

/** Aim a kill at a phase of the run about to start. */
function plan(db: string, phase: Phase, rng: Rng): KillPlan {
  const runs0 = versionCount(db, 'runs');
  const rejected0 = versionCount(db, 'rejected');
  if (phase === 'ingest') return { when: () => versionCount(db, 'runs') > runs0, delayMs: rng.int(150) };
  if (phase === 'write') {
    const k = 1 + rng.int(commits - 1);
    return { when: () => commitsMade(db, rejected0) >= k, delayMs: rng.int(40) };
  }
  // After the last commit: compaction, tagging and the run record take the last ~100 ms.
  return { when: () => commitsMade(db, rejected0) >= commits, delayMs: rng.int(60) };
}

/** Where a kill landed, from how many commits the killed run made (the summary's keys). */
function describeKill(db: string, rejected0: number): string {
  const made = commitsMade(db, rejected0);
  if (made === 0) return 'before its first commit';
  if (made < commits) return 'between or during commits';
  return 'after its last commit (compaction, tag, run record)';
}

async function killChain(name: string, seed: number, phases: Phase[]): Promise<Record<string, number>> {
  const db = join(dir, `db-${name}`);
  const rng = new Rng(seed);
  const where: Record<string, number> = {};
  let kills = 0;
  // Phases are tried in turn; a kill that comes too late (the run already finished) does not count
  // and the phase is tried again (a fast machine misses more often than a loaded one).
  for (let attempt = 0; kills < phases.length && attempt < phases.length * 5; attempt++) {
    const rejected0 = versionCount(db, 'rejected');
    const r = await spawnWinnow(['run', yaml, '--db', db, '--quiet'], {
      kill: plan(db, phases[attempt % phases.length]!, rng),
    });
    if (!r.killed) {
      expect(r.code).toBe(0); // the run finished before the kill landed
      continue;
    }
    kills++;
    const w = describeKill(db, rejected0);
    where[w] = (where[w] ?? 0) + 1;
  }
  expect(kills).toBe(phases.length);
  const last = await spawnWinnow(['run', yaml, '--db', db, '--json']);
  expect(last.code).toBe(0);
  const after = await landed(db);
  expect(after.length).toBe(reference.length);
  expect(after).toEqual(reference);
  expect(new Set(after.map((l) => l.split(' ')[0])).size).toBe(after.length);
  const report = JSON.parse(last.stdout) as { totalTasks: number; tasksOut: number };
  expect(report.totalTasks).toBe(reference.length);
  expect(report.tasksOut).toBe(reference.length);
  return where;
}

const summary: Record<string, number> = {};
const add = (w: Record<string, number>) => {
  for (const [k, v] of Object.entries(w)) summary[k] = (summary[k] ?? 0) + v;
};

describe('task pipeline: SIGKILL at random points, then run again', () => {
  it('the reference run lands a messy 12,000-row file in several commits', () => {
    expect(reference.length).toBeGreaterThan(10_000);
    expect(reference.length).toBeLessThan(ROWS);
    expect(commits).toBeGreaterThanOrEqual(6);
  });

  // Two chains cover every phase, each resumed from what the previous kill left (a third chain of
  // the same phases added minutes and no new case).
  it(
    'chain A (4 kills: ingest, write, write, finish) converges to the reference rows',
    async () => {
      add(await killChain('a', 101, ['ingest', 'write', 'write', 'finish']));
    },
    CHAIN_TIMEOUT_MS,
  );

  it(
    'chain B (3 kills: write, finish, ingest) converges to the reference rows',
    async () => {
      add(await killChain('b', 202, ['write', 'finish', 'ingest']));
      console.info(`task pipeline kill points by what they interrupted: ${JSON.stringify(summary)}`);
    },
    CHAIN_TIMEOUT_MS,
  );

  it('a strict run over input with a bad row lands nothing, even when killed part-way (3 kills)', {
    timeout: CHAIN_TIMEOUT_MS,
  }, async () => {
    const data = join(dir, 'strict.jsonl');
    writeDataset(data, 4_000, '{"id": "last", "question": "cut off\n');
    const strictYaml = join(dir, 'strict.yaml');
    writePipeline(strictYaml, 'strict.jsonl');
    const db = join(dir, 'db-strict');
    const rng = new Rng(404);
    let kills = 0;
    // Armed by this attempt's own run record (a new version of `runs`), not by the clock.
    for (let attempt = 0; kills < 3 && attempt < 15; attempt++) {
      const runs0 = versionCount(db, 'runs');
      const r = await spawnWinnow(['run', strictYaml, '--db', db, '--strict', '--quiet'], {
        kill: { when: () => versionCount(db, 'runs') > runs0, delayMs: rng.int(60) },
      });
      if (r.killed) kills++;
      else expect(r.code).toBe(3);
      expect(await tableRows(db, 'tasks')).toEqual([]);
    }
    expect(kills).toBe(3);
    const r = await spawnWinnow(['run', strictYaml, '--db', db, '--strict']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('could not be read or mapped (strict mode): nothing was landed');
    expect(await tableRows(db, 'tasks')).toEqual([]);
  });
});
