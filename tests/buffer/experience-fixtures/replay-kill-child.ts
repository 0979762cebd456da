/**
 * The replay run of replay-run.ts in one process: every sampler its own buffer under `<root>/db-<method>`,
 * all driven in lockstep, like a trainer: per step write the step's rollouts, sample BATCH, log the
 * batch and the lease it appended; every EVERY steps write the checkpoint (atomic rename), then ack.
 * On start it resumes from the checkpoint (`recover(t)`, or `recover(null)` without one).
 *
 * Usage: node replay-kill-child.ts <root> [<kill>]; `<kill>` makes the process SIGKILL itself at an
 * exact place, for every method at once:
 * - `lease:N`  step N's batches are leased (and logged), not acknowledged;
 * - `ack:N`    checkpoint N is durable, its acks are not made;
 * - `tear:N`   in the middle of step N's lease append: each method's line is half written;
 * - `write:N`  in the middle of step N's experience writes: once every table has a new data file
 *   (or its commit already landed), before the writes resolve.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { ExperienceBuffer } from '../../../src/buffer/experience-buffer.ts';
import { LEASE_LOG_FILE } from '../../../src/buffer/storage/lease-log.ts';
import type { Experience } from '../../../src/core/experience.ts';
import { connect } from '../../../src/store/connection.ts';
import { trainBatchRow } from '../../../src/trainer/external/batch.ts';
import {
  BATCH,
  bufferConfig,
  type DeliveredRow,
  EVERY,
  type LogLine,
  METHODS,
  STEPS,
  stepRollouts,
  timelessLeaseLine,
} from './replay-run.ts';

const [root, kill = ''] = process.argv.slice(2) as [string, string | undefined];
const [killAt, killStepText] = kill.split(':');
const killStep = Number(killStepText);
const methods = Object.keys(METHODS);
const logFile = join(root, 'log.jsonl');
const ckptFile = join(root, 'ckpt.json');
const log = (line: LogLine) => appendFileSync(logFile, `${JSON.stringify(line)}\n`);
const dbOf = (m: string) => join(root, `db-${m}`);
const leaseLogOf = (m: string) => join(dbOf(m), 'experiences_uses.lance', LEASE_LOG_FILE);

function die(at: string, landed?: string[]): never {
  log({ k: 'kill', pid: process.pid, at, ...(landed ? { landed } : {}) });
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

const leaseLines = (m: string) =>
  existsSync(leaseLogOf(m)) ? readFileSync(leaseLogOf(m), 'utf8').split('\n').filter(Boolean) : [];

const delivered = (e: Experience, weight: number): DeliveredRow => {
  const r = trainBatchRow(e);
  return [
    r.id,
    r.use_count,
    r.off_policy,
    Number.isNaN(r.behavior_logprob) ? null : r.behavior_logprob,
    r.advantage,
    weight,
  ];
};

/**
 * `tear:N`: every lease append of step N writes half its line and never returns (its `sample`
 * hangs: that method's run stops mid-write); once every method is torn, the process kills itself.
 */
async function armTear(step: number): Promise<void> {
  const probe = await open(logFile, 'r');
  const proto = Object.getPrototypeOf(probe) as {
    write: (data: unknown, ...rest: unknown[]) => Promise<unknown>;
  };
  await probe.close();
  const write = proto.write;
  let torn = 0;
  proto.write = function (this: unknown, data: unknown, ...rest: unknown[]) {
    if (typeof data === 'string' && data.startsWith(`u${step}\t`)) {
      return write.call(this, data.slice(0, Math.floor(data.length / 2)), ...rest).then(async () => {
        if (++torn === methods.length) die(kill);
        await new Promise(() => undefined);
      });
    }
    return write.call(this, data, ...rest);
  };
}

const dataFiles = (m: string) => {
  const d = join(dbOf(m), 'experiences.lance', 'data');
  return existsSync(d) ? readdirSync(d).length : 0;
};

/** `write:N`: start every method's write, kill once each has a new data file or has landed. */
async function writeThenDie(buffers: Map<string, ExperienceBuffer>, rows: Experience[]): Promise<never> {
  const before = new Map(methods.map((m) => [m, dataFiles(m)]));
  const landed = new Set<string>();
  for (const m of methods)
    void buffers
      .get(m)!
      .write(rows)
      .then(() => landed.add(m));
  for (;;) {
    if (methods.every((m) => landed.has(m) || dataFiles(m) > before.get(m)!)) die(kill, [...landed].sort());
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * The run's resume protocol (src/lifecycle/run/run-buffer.ts): roll back the leases after the
 * checkpoint, take the rows written after it out of the table (the run re-writes them when it
 * redoes their steps), reopen and recover again.
 */
async function resume(m: string, from: number): Promise<ExperienceBuffer> {
  const t = from === 0 ? null : from;
  const first = await ExperienceBuffer.open(dbOf(m), bufferConfig(m));
  await first.recover(t);
  const later = await first.table.countRows(`explore_step > ${from}`);
  if (later === 0) return first;
  await first.close();
  await (await (await connect(dbOf(m))).openTable('experiences')).delete(`explore_step > ${from}`);
  const b = await ExperienceBuffer.open(dbOf(m), bufferConfig(m));
  await b.recover(t);
  return b;
}

async function main(): Promise<void> {
  const from = existsSync(ckptFile)
    ? (JSON.parse(readFileSync(ckptFile, 'utf8')) as { step: number }).step
    : 0;
  log({ k: 'start', pid: process.pid, from });
  if (killAt === 'tear') await armTear(killStep);
  const buffers = new Map<string, ExperienceBuffer>();
  for (const m of methods) buffers.set(m, await resume(m, from));
  const all = (f: (m: string, b: ExperienceBuffer) => Promise<unknown>) =>
    Promise.all(methods.map((m) => f(m, buffers.get(m)!)));
  for (let s = from + 1; s <= STEPS; s++) {
    const rows = stepRollouts(s);
    if (killAt === 'write' && killStep === s) await writeThenDie(buffers, rows);
    // Writes are idempotent on id: a step redone after a kill stores nothing twice.
    await all((_m, b) => b.write(rows));
    await all(async (m, b) => {
      const batch = await b.sample(BATCH, { step: s });
      const rowsOut = batch.experiences.map((e, i) => delivered(e, batch.weights[i] ?? 1));
      const lease = leaseLines(m).at(-1);
      const leased = lease?.startsWith(`u${s}\t`) ? timelessLeaseLine(lease) : '';
      log({ k: 'batch', pid: process.pid, m, s, rows: rowsOut, lease: leased });
    });
    if (killAt === 'lease' && killStep === s) die(kill);
    if (s % EVERY === 0 || s === STEPS) {
      writeFileSync(`${ckptFile}.tmp`, JSON.stringify({ step: s }));
      renameSync(`${ckptFile}.tmp`, ckptFile);
      log({ k: 'checkpoint', pid: process.pid, s });
      if (killAt === 'ack' && killStep === s) die(kill);
      await all((_m, b) => b.ack(s));
    }
  }
  await all(async (m, b) => {
    const books = b.bookkeeping().map((r) => `${r.id} uses=${r.useCount} pending=${r.pending}`);
    const st = b.stats();
    log({
      k: 'end',
      pid: process.pid,
      m,
      books: books.sort(),
      pending: st.pendingLeases,
      lastAck: st.lastAcknowledgedStep,
      leases: leaseLines(m).map(timelessLeaseLine),
    });
    await b.close();
  });
}

await main();
