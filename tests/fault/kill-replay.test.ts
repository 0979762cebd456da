import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.ts';
import type { TapLine, TappedRow } from './fixtures/replay-tap.ts';
import { fileLines, spawnWinnow, tableRows } from './harness.ts';
import { writeRftYaml } from './rft-files.ts';
import { latest, type RunSnapshot, snapshotRun } from './rft-tables.ts';

/**
 * Issue 42, end to end through the CLI: `winnow run` with a replay method (ExGRPO, with the
 * trainer's policy shaping for its replayed rows) on the tiny policy, SIGKILLed at exact places and
 * continued with `winnow run --resume`, hands the trainer exactly the batches of an uninterrupted
 * run and writes exactly its leases. A preload (fixtures/replay-tap.ts) records every batch and
 * every lease log line, and makes the kills that fall inside a write; the others are the run's
 * crash points (WINNOW_CRASH_AT). One chain of kills, each resumed:
 * after step 3 trained (its batch leased, not acknowledged: the checkpoint is every 2 steps);
 * in the middle of step 4's lease append (a torn lease line); right after checkpoint 4's
 * `latest.json` (before its ack); in the middle of step 5's experience commit.
 * The finished run must also equal the uninterrupted one in every table and file (as kill-rft).
 */
const dir = tempDir('winnow-kill-replay-');
const STEPS = 6;
const TAP = pathToFileURL(fileURLToPath(new URL('./fixtures/replay-tap.ts', import.meta.url))).href;
/** Guards against a hung process only; nothing waits on the clock. */
const PROCESS_MS = 540_000;
const TEST_MS = 1_800_000;
const BUFFER = { sampler: { type: 'exgrpo' } };
const {
  file: yaml,
  db: refDb,
  runDir: refRun,
} = writeRftYaml(dir, 'kill-replay', {
  buffer: BUFFER,
  trainer: { type: 'policy_gradient', params: { lr: 0.001, offPolicy: { mode: 'shaping' } } },
  // Room for every fresh rollout of a step beside the replayed ones, so a row of a later step left
  // in the table by a resume would be trained a step early, and show.
  lifecycle: { mode: 'sync', steps: STEPS, checkpointEvery: 2, trainBatch: 32 },
});
/** The chain's kills: env for the child, and the checkpoint its resume starts from. */
const KILLS: { name: string; env: Record<string, string> }[] = [
  { name: 'after step 3 trained, before its ack', env: { WINNOW_CRASH_AT: 'step:3' } },
  { name: 'in the middle of step 4’s lease append', env: { WINNOW_TEST_TEAR: '4' } },
  {
    name: 'after checkpoint 4’s latest.json, before its ack',
    env: { WINNOW_CRASH_AT: 'checkpoint-pointer:4' },
  },
  { name: 'in the middle of step 5’s experience commit', env: { WINNOW_TEST_KILL_WRITE: '5' } },
];

type Batch = Extract<TapLine, { k: 'batch' }>;
interface Tapped {
  lines: TapLine[];
  /** Per process (pid), the checkpoint step it started from (0: none). */
  from: Map<number, number>;
}
let runId = '';
let ref: Tapped;
let chain: Tapped;
let refSnap: RunSnapshot;
let chainSnap: RunSnapshot;
const killed: (string | null)[] = [];

async function winnow(
  args: string[],
  tapFile: string,
  from: Map<number, number>,
  env: Record<string, string> = {},
) {
  const startedFrom = latest(args[args.indexOf('--run-dir') + 1] ?? refRun)?.step ?? 0;
  return spawnWinnow(args, {
    timeoutMs: PROCESS_MS,
    env: {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${TAP}`.trim(),
      WINNOW_TEST_TAP: tapFile,
      WINNOW_TEST_DB: args[args.indexOf('--db') + 1] ?? refDb,
      ...env,
    },
    onSpawn: (pid) => from.set(pid, startedFrom),
  });
}

const readTap = (file: string, from: Map<number, number>): Tapped => ({
  lines: fileLines(file).map((l) => JSON.parse(l) as TapLine),
  from,
});

beforeAll(async () => {
  const reference = async () => {
    const from = new Map<number, number>();
    const tapFile = join(dir, 'reference.tap');
    const r = await winnow(['run', yaml, '--json', '--db', refDb, '--run-dir', refRun], tapFile, from);
    expect([r.code, r.stderr.split('\n').filter((l) => l.startsWith('error'))]).toEqual([0, []]);
    runId = (JSON.parse(r.stdout) as { runId: string }).runId;
    ref = readTap(tapFile, from);
  };
  const db = join(dir, 'chain-db');
  const runDir = join(dir, 'chain-run');
  const killedChain = async () => {
    const from = new Map<number, number>();
    const tapFile = join(dir, 'chain.tap');
    const args = ['run', yaml, '--db', db, '--run-dir', runDir];
    for (const [i, kill] of KILLS.entries())
      killed.push((await winnow(i === 0 ? args : [...args, '--resume'], tapFile, from, kill.env)).signal);
    const last = await winnow([...args, '--resume'], tapFile, from);
    expect([last.code, last.stderr.split('\n').filter((l) => l.startsWith('error'))]).toEqual([0, []]);
    chain = readTap(tapFile, from);
  };
  await Promise.all([reference(), killedChain()]);
  refSnap = await snapshotRun(refDb, refRun, runId, BUFFER);
  chainSnap = await snapshotRun(db, runDir, runId, BUFFER);
}, TEST_MS);

const batches = (t: Tapped) => t.lines.filter((l): l is Batch => l.k === 'batch');
const leases = (t: Tapped) => t.lines.flatMap((l) => (l.k === 'lease' ? [l] : []));
const refBatch = (step: number) => batches(ref).find((b) => b.step === step)?.rows;
/** The step a lease log line is for (`u3\t…` → 3). */
const stepOf = (line: string) => Number(/^[ua](-?\d+)\t/.exec(line)![1]);

/** The deliveries that count: a process resumed from checkpoint t rolled back every later step. */
function effective(t: Tapped): Map<number, TappedRow[]> {
  const out = new Map<number, TappedRow[]>();
  let pid = -1;
  for (const l of t.lines) {
    if (l.pid !== pid) {
      pid = l.pid;
      for (const s of [...out.keys()]) if (s > t.from.get(pid)!) out.delete(s);
    }
    if (l.k === 'batch') {
      expect(out.has(l.step), `step ${l.step} delivered twice without a rollback`).toBe(false);
      out.set(l.step, l.rows);
    }
  }
  return out;
}

describe('winnow run with a replay method (exgrpo): SIGKILL, then --resume, gives the same leases and batches', () => {
  it('every kill landed, each resume started from the checkpoint before it', () => {
    expect(killed).toEqual(KILLS.map(() => 'SIGKILL'));
    expect([...chain.from.values()]).toEqual([0, 2, 2, 4, 4]);
    const kills = chain.lines.flatMap((l) => (l.k === 'kill' ? [l.at] : []));
    expect(kills).toEqual(['tear:4', 'write:5']);
  });

  it('the reference run replays: off-policy rows with behaviour log-probs reach the trainer', () => {
    const rows = batches(ref).flatMap((b) => b.rows);
    expect(batches(ref).map((b) => b.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows.filter((r) => r[2] === 1).length).toBeGreaterThan(0);
    expect(rows.every((r) => r[3] !== null && r[3] <= 0)).toBe(true);
  });

  it('every batch handed to the trainer, re-drawn ones included, equals the uninterrupted run’s at that step', () => {
    expect(batches(chain).length).toBeGreaterThan(STEPS);
    for (const b of batches(chain)) expect([b.step, b.rows]).toEqual([b.step, refBatch(b.step)]);
  });

  it('every lease log line written, re-written ones included, equals the uninterrupted run’s for that step', () => {
    const refLines = new Map(leases(ref).map((l) => [l.line.slice(0, l.line.indexOf('\t')), l.line]));
    expect(leases(chain).length).toBeGreaterThan(leases(ref).length);
    for (const l of leases(chain)) expect(l.line).toBe(refLines.get(l.line.slice(0, l.line.indexOf('\t'))));
    expect(leases(ref).map((l) => stepOf(l.line))).toEqual([1, 2, 2, 3, 4, 4, 5, 6, 6]);
  });

  it('after the resumes: one batch per step, use counts 1, 2, 3, … per experience, off-policy exactly when replayed', () => {
    const eff = effective(chain);
    expect([...eff.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    const uses = new Map<string, number>();
    for (let s = 1; s <= STEPS; s++) {
      expect(eff.get(s)).toEqual(refBatch(s));
      for (const [id, useCount, offPolicy] of eff.get(s)!) {
        const n = (uses.get(id) ?? 0) + 1;
        uses.set(id, n);
        expect([id, useCount, offPolicy]).toEqual([id, n, n > 1 ? 1 : 0]);
      }
    }
    // The buffer's use counts are the deliveries that count, none pending.
    for (const line of chainSnap.books) {
      const [id, u] = line.split(' ');
      expect([id, u]).toEqual([id, `uses=${uses.get(id!) ?? 0}`]);
    }
    expect([chainSnap.stats.pendingLeases, chainSnap.stats.lastAcknowledgedStep]).toEqual([0, STEPS]);
  });

  it('each delivered row’s behaviour log-prob is the sum of its stored action log-probs', async () => {
    const stored = new Map(
      (await tableRows(join(dir, 'chain-db'), `${runId}_experiences`)).map((r) => {
        const lp = Array.from(r.logprobs as ArrayLike<number>);
        const mask = Array.from(r.action_mask as ArrayLike<number>);
        return [String(r.id), lp.reduce((a, x, i) => (mask.length === 0 || mask[i] === 1 ? a + x : a), 0)];
      }),
    );
    for (const rows of effective(chain).values())
      for (const [id, , , lp] of rows) expect([id, lp]).toEqual([id, stored.get(id)]);
  });

  it('the finished run equals the uninterrupted one in every table and file', () => {
    const pick = (s: RunSnapshot) => ({ ...s, stats: [s.stats.pendingLeases, s.stats.lastAcknowledgedStep] });
    expect(pick(chainSnap)).toEqual(pick(refSnap));
    expect(refSnap.checkpoint).toBe(STEPS);
  });
});
