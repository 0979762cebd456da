import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// The project's connect: a database URI (s3://…) opens with this process's storage options.
import { connect } from '../../src/store/connection.ts';
import { REPO_ROOT, WINNOW_BIN } from '../helpers/cli.ts';
import { scaled } from '../helpers/slowdown.ts';

/** A `winnow` child process whose output is collected as it comes. */
export interface Proc {
  child: ChildProcess;
  out: string;
  err: string;
  exited: Promise<number>;
}

export function startWinnow(args: string[], cwd: string): Proc {
  const child = spawn(process.execPath, [WINNOW_BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = {
    child,
    out: '',
    err: '',
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : -1))),
    ),
  };
  child.stdout?.on('data', (c) => {
    p.out += String(c);
  });
  child.stderr?.on('data', (c) => {
    p.err += String(c);
  });
  return p;
}

export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A worker process; resolves once it says it is ready. The default visibility timeout is long
 * enough, stretched by the run's slowdown factor, that a busy machine does not make a live
 * worker's first job look stalled (a worker loads a run's parts when its first job arrives);
 * tests that kill workers pass a short one.
 */
export async function startWorker(queue: string, cwd: string, visibilityMs = scaled(6_000)): Promise<Proc> {
  const w = startWinnow(
    ['worker', '--queue', queue, '--concurrency', '4', '--visibility-timeout', String(visibilityMs)],
    cwd,
  );
  await waitFor(() => /ready on/.test(w.err) || w.child.exitCode !== null, 60_000, 'a worker to start');
  if (w.child.exitCode !== null) throw new Error(`worker exited: ${w.err}`);
  return w;
}

export async function stopAll(procs: Proc[]): Promise<void> {
  for (const p of procs)
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
  await Promise.all(
    procs.map((p) =>
      Promise.race([p.exited, new Promise((r) => setTimeout(r, 5_000))]).then(() => {
        if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      }),
    ),
  );
}

/** The test RFT config: BOTS over 200 arithmetic tasks, a served model, the export trainer. */
export function writeConfig(dir: string, baseUrl: string, steps: number, batchTasks: number): string {
  const file = join(dir, 'scale.yaml');
  writeFileSync(
    file,
    [
      'name: scale',
      'kind: rft',
      'seed: 5',
      'tasks:',
      `  path: ${join(REPO_ROOT, 'datasets/arithmetic/train.jsonl')}`,
      '  mapping: { taskset: arithmetic, id: id, prompt: prompt, answer: answer, features: { difficulty: features.difficulty } }',
      '  limit: 200',
      'selector: { type: bots }',
      'explorer:',
      `  model: { type: openai, params: { model: arith, baseUrl: "${baseUrl}", endpoint: completions, logprobs: false } }`,
      '  reward: math',
      '  repeat: 4',
      `  batchTasks: ${batchTasks}`,
      '  concurrency: 4',
      'experienceOps: [{ op: invalid_reward }, { op: grpo }]',
      'trainer: { type: export, params: { dir: ./export } }',
      `lifecycle: { mode: sync, steps: ${steps}, checkpointEvery: 1 }`,
      'monitors: []',
      '',
    ].join('\n'),
  );
  return file;
}

/** What two runs must agree on: step records without timings, buffer rows, the final selector state. */
export interface RunOutcome {
  steps: Record<string, unknown>[];
  rows: { id: string; groupId: string; reward: number; advantage: number; response: string }[];
  selector: unknown;
}

const TIMING = /Ms$|PerSecond$/;

export async function readOutcome(dbDir: string, runDir: string, runId: string): Promise<RunOutcome> {
  const steps = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => Object.fromEntries(Object.entries(JSON.parse(l)).filter(([k]) => !TIMING.test(k))));
  const db = await connect(dbDir);
  const table = await db.openTable(`${runId}_experiences`);
  const raw = await table.query().select(['id', 'group_id', 'reward', 'advantage', 'response']).toArray();
  const rows = raw
    .map((r) => ({
      id: String(r.id),
      groupId: String(r.group_id),
      reward: Number(r.reward),
      advantage: Number(r.advantage),
      response: String(r.response),
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
  const latest = JSON.parse(readFileSync(join(runDir, 'checkpoints', 'latest.json'), 'utf8')) as {
    dir: string;
  };
  const state = JSON.parse(readFileSync(join(latest.dir, 'state.json'), 'utf8')) as { selector: unknown };
  return { steps, rows, selector: state.selector };
}

export interface JobLine {
  step: number;
  taskId: string;
  jobId: string;
  worker: string;
  reclaimed: number;
}

export function readJobLines(runDir: string): JobLine[] {
  return readFileSync(join(runDir, 'scale-jobs.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as JobLine);
}

/** Every file under `dir` with its size and modification time: "nothing written" means this is unchanged. */
export function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const s = statSync(p);
        out.push(`${p} ${s.size} ${s.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * After SIGSTOP, wait until every thread of `pid` is stopped and the files under `dir` have stopped
 * changing: the signal is delivered asynchronously, so the process (its background row-store and
 * LanceDB writes included) may still run for a moment after `kill` returns.
 */
export async function settledAfterStop(pid: number, dir: string): Promise<string[]> {
  const stopped = () =>
    readdirSync(`/proc/${pid}/task`).every((t) => {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      return /^[Tt]$/.test(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '');
    });
  for (let i = 0; i < 500 && !stopped(); i++) await new Promise((r) => setTimeout(r, 10));
  let last = snapshot(dir);
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = snapshot(dir);
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  return last;
}
