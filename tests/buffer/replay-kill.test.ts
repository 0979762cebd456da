import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEASE_LOG_FILE } from '../../src/buffer/storage/lease-log.ts';
import { tempDir } from '../helpers/tmp.ts';
import {
  type DeliveredRow,
  type LogLine,
  METHODS,
  REPLAY_METHODS,
  STEPS,
  stepRollouts,
} from './experience-fixtures/replay-run.ts';

/**
 * Issue 42: every replay method (exgrpo, repo with each retrieval strategy, dots_replay) and every
 * classic discipline, SIGKILLed and resumed, delivers exactly the leases and batches of an
 * uninterrupted run. One child process drives all of them in lockstep (replay-kill-child.ts), each
 * sampler on its own on-disk buffer; it kills itself at exact places, so nothing here depends on
 * the machine's speed:
 * after step 3's batches are leased and before they are acknowledged; in the middle of step 4's
 * lease append (a torn line in every method's lease log); after checkpoint 4 is durable and before
 * its acks; in the middle of step 5's experience writes (data files written, commits in flight);
 * in the middle of step 7's lease append. Each kill is followed by a resume from the checkpoint.
 */
const child = fileURLToPath(new URL('./experience-fixtures/replay-kill-child.ts', import.meta.url));
const root = tempDir('winnow-replay-kill-');
const KILLS = ['lease:3', 'tear:4', 'ack:4', 'write:5', 'tear:7'] as const;
/** Only a guard against a hung child; every wait here is on the child's own progress. */
const CHILD_MS = 600_000;
const methods = Object.keys(METHODS);

function runChild(
  dir: string,
  kill?: string,
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, dir, ...(kill ? [kill] : [])], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    p.stderr.on('data', (d) => {
      stderr += String(d);
    });
    const guard = setTimeout(() => p.kill('SIGKILL'), CHILD_MS);
    p.on('error', reject);
    p.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stderr });
    });
  });
}

const readLog = (dir: string) =>
  readFileSync(join(dir, 'log.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine);
type Batch = Extract<LogLine, { k: 'batch' }>;
type End = Extract<LogLine, { k: 'end' }>;
const leaseLog = (dir: string, m: string) =>
  readFileSync(join(dir, `db-${m}`, 'experiences_uses.lance', LEASE_LOG_FILE), 'utf8');

const refDir = join(root, 'reference');
const chainDir = join(root, 'killed');
let ref: LogLine[] = [];
let chain: LogLine[] = [];
/** Per kill: whether every method's lease log ended in a torn (unterminated) line right after it. */
const tornAfter: Record<string, boolean> = {};

/** The deliveries that count after the chain: a resume from checkpoint t rolls back every later step. */
function effective(log: LogLine[], m: string): Map<number, Batch> {
  const out = new Map<number, Batch>();
  for (const l of log) {
    if (l.k === 'start') for (const s of [...out.keys()]) if (s > l.from) out.delete(s);
    if (l.k === 'batch' && l.m === m) {
      expect(out.has(l.s), `${m}: step ${l.s} delivered twice without a rollback`).toBe(false);
      out.set(l.s, l);
    }
  }
  return out;
}

const refBatch = (m: string, s: number) =>
  ref.find((l): l is Batch => l.k === 'batch' && l.m === m && l.s === s);
const endOf = (log: LogLine[], m: string) => log.find((l): l is End => l.k === 'end' && l.m === m);
/** The uninterrupted run's lease log line with the same header (`u3`: step 3's leases, `a4`: the ack of step 4). */
function refLeaseLine(m: string, like: string): string | undefined {
  const head = like.slice(0, like.indexOf('\t'));
  const step = Number(head.slice(1));
  return head.startsWith('a') ? `${head}\t[["ack",-1,"",${step},""]]` : refBatch(m, step)?.lease;
}
const plain = (b: Batch | undefined) => (b ? { rows: b.rows, lease: b.lease } : undefined);

beforeAll(async () => {
  mkdirSync(refDir, { recursive: true });
  mkdirSync(chainDir, { recursive: true });
  const killedChain = async () => {
    for (const kill of KILLS) {
      const r = await runChild(chainDir, kill);
      expect([kill, r.signal, r.stderr]).toEqual([kill, 'SIGKILL', '']);
      tornAfter[kill] = methods.every((m) => !leaseLog(chainDir, m).endsWith('\n'));
    }
    const last = await runChild(chainDir);
    expect([last.code, last.stderr]).toEqual([0, '']);
  };
  const [straight] = await Promise.all([runChild(refDir), killedChain()]);
  expect([straight.code, straight.stderr]).toEqual([0, '']);
  ref = readLog(refDir);
  chain = readLog(chainDir);
}, 2 * CHILD_MS);

describe('replay samplers under SIGKILL: leases and batches equal an uninterrupted run', () => {
  it('the kills landed where they were aimed', () => {
    expect(chain.filter((l) => l.k === 'kill').map((l) => (l.k === 'kill' ? l.at : ''))).toEqual([...KILLS]);
    expect(chain.filter((l) => l.k === 'start').map((l) => (l.k === 'start' ? l.from : -1))).toEqual([
      0, 2, 2, 4, 4, 6,
    ]);
    // Mid-append kills leave a torn last line in every method's lease log; the others do not.
    expect(tornAfter).toEqual({
      'lease:3': false,
      'tear:4': true,
      'ack:4': false,
      'write:5': false,
      'tear:7': true,
    });
  });

  it('the reference run replays: every replay method delivers off-policy rows', () => {
    for (const m of [...REPLAY_METHODS, 'uniform', 'version_priority', 'advantage_priority']) {
      const replayed = ref
        .filter((l): l is Batch => l.k === 'batch' && l.m === m)
        .flatMap((b) => b.rows.filter((r) => r[2] === 1));
      expect([m, replayed.length > 0]).toEqual([m, true]);
    }
  });

  describe.each(methods)('%s', (m) => {
    it('every batch ever delivered, re-drawn ones included, equals the uninterrupted run’s at that step (rows and lease)', () => {
      const delivered = chain.filter((l): l is Batch => l.k === 'batch' && l.m === m);
      expect(delivered.length).toBeGreaterThan(STEPS);
      for (const b of delivered) expect([b.s, plain(b)]).toEqual([b.s, plain(refBatch(m, b.s))]);
    });

    it('after the resumes, one batch per step, equal to the uninterrupted run’s; no delivery twice, none lost', () => {
      const eff = effective(chain, m);
      expect([...eff.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
      for (const [s, b] of eff) expect([s, plain(b)]).toEqual([s, plain(refBatch(m, s))]);
      // Per experience, its deliveries count 1, 2, 3, … (a lost or repeated delivery breaks the run),
      // a row is off-policy exactly when replayed, and no batch holds a row twice.
      const uses = new Map<string, number>();
      for (let s = 1; s <= STEPS; s++) {
        const rows = eff.get(s)!.rows;
        expect(new Set(rows.map((r) => r[0])).size).toBe(rows.length);
        for (const [id, useCount, offPolicy] of rows) {
          const n = (uses.get(id) ?? 0) + 1;
          uses.set(id, n);
          expect([id, useCount, offPolicy]).toEqual([id, n, n > 1 ? 1 : 0]);
        }
      }
      const end = endOf(chain, m)!;
      expect(end).toBeDefined();
      const refEnd = endOf(ref, m)!;
      expect([end.books, end.pending, end.lastAck]).toEqual([refEnd.books, 0, STEPS]);
      // Both lease logs end holding lines of the run's last steps (how many depends on when a fold
      // trimmed them, which differs with the process's lifetime); each is the line that step wrote
      // in the uninterrupted run.
      for (const log of [end.leases, refEnd.leases]) {
        expect(log.length).toBeGreaterThan(0);
        for (const line of log) expect(line).toBe(refLeaseLine(m, line));
      }
      for (const line of end.books) {
        const [id, u] = line.split(' ');
        expect([id, u]).toEqual([id, `uses=${uses.get(id!) ?? 0}`]);
      }
      // Replay methods and FIFO train fresh rollouts once each, oldest first: those delivered fresh
      // are the written rows in write order, none skipped, none twice (a backlog may remain).
      if ([...REPLAY_METHODS, 'fifo'].includes(m)) {
        const fresh = [...eff.values()].flatMap((b) => b.rows.filter((r) => r[1] === 1).map((r) => r[0]));
        const written = Array.from({ length: STEPS }, (_, i) => stepRollouts(i + 1).map((e) => e.id)).flat();
        expect(fresh.length).toBeGreaterThan(written.length / 2);
        expect(fresh).toEqual(written.slice(0, fresh.length));
      }
    });

    it('each delivered row carries the behaviour log-probs it was written with', () => {
      const written = new Map(
        Array.from({ length: STEPS }, (_, i) => stepRollouts(i + 1))
          .flat()
          .map((e) => [e.id, e.logprobs.map((x) => Math.fround(x)).reduce((a, b) => a + b, 0)]),
      );
      for (const b of effective(chain, m).values())
        for (const r of b.rows as DeliveredRow[])
          expect([r[0], r[3]! - written.get(r[0])!]).toEqual([r[0], expect.closeTo(0, 9)]);
    });
  });
});
