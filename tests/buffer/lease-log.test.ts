import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import type { JournalEntry } from '../../src/buffer/storage/experience-journal.ts';
import { LEASE_LOG_FILE, LeaseLog } from '../../src/buffer/storage/lease-log.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

const root = tempDir('winnow-lease-log-');

const use = (seq: number, step: number, id = `e${seq}`): JournalEntry => ({
  kind: 'use',
  seq,
  id,
  step,
  at: 1_000 + seq,
  reason: '',
});

describe('LeaseLog', () => {
  it('reads back exactly what was appended, in order', async () => {
    const log = new LeaseLog(join(root, 'a.jsonl'));
    expect(await log.readAll()).toEqual([]);
    const first = [use(0, 1), use(3, 1, 'id "quoted"\nnewline')];
    const second: JournalEntry[] = [
      { kind: 'skip', seq: 7, id: 'e7', step: 2, at: 5, reason: 'stale: model version 1 < 3' },
      { kind: 'ack', seq: -1, id: '', step: 2, at: 6, reason: '' },
    ];
    await log.append(first);
    await log.append([]);
    await log.append(second);
    expect(await log.readAll()).toEqual([...first, ...second]);
    // One line per kind class (leases and skips / acks) and step, each headed by them.
    expect(
      readFileSync(log.path, 'utf8')
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['u1', 'u2', 'a2', '']);
  });

  it('drops a torn last line (an append killed mid-write) but refuses a bad line before it', async () => {
    const path = join(root, 'torn.jsonl');
    const log = new LeaseLog(path);
    await log.append([use(1, 1)]);
    appendFileSync(path, '[["use",2,"e2",1,100');
    expect(await log.readAll()).toEqual([use(1, 1)]);
    // The next append cuts the torn bytes off first, so its line does not continue them.
    await new LeaseLog(path).append([use(3, 2)]);
    expect(await log.readAll()).toEqual([use(1, 1), use(3, 2)]);
    // Any other bad line is refused, naming the file and the line.
    writeFileSync(path, '[["use",1,"e1",1,1001,""]]\nnot json\n[["use",2,"e2",1,1002,""]]\n');
    await expect(log.readAll()).rejects.toThrow(
      `${path}:row 2: not a lease log line (a JSON array of [kind, seq, id, step, at, reason]); was the file edited by hand? Restore it, or delete it to forget the leases it holds`,
    );
  });

  it('retain rewrites the log with the kept entries only, and leaves it alone when nothing is dropped', async () => {
    const log = new LeaseLog(join(root, 'r.jsonl'));
    await log.append([use(0, 1), use(1, 1)]);
    await log.append([use(2, 2), use(3, 3)]);
    const before = statSync(log.path).ino;
    await log.retain(() => true);
    expect(statSync(log.path).ino).toBe(before);
    await log.retain((e) => e.step !== 1);
    expect(await log.readAll()).toEqual([use(2, 2), use(3, 3)]);
    await log.append([use(4, 4)]);
    expect(await log.readAll()).toEqual([use(2, 2), use(3, 3), use(4, 4)]);
    await log.retain(() => false);
    expect(await log.readAll()).toEqual([]);
  });

  it('retain decides whole lines by their header where it can, and parses only the others', async () => {
    const log = new LeaseLog(join(root, 'h.jsonl'));
    await log.append([use(0, 1), use(1, 1)]);
    await log.append([{ kind: 'ack', seq: -1, id: '', step: 1, at: 9, reason: '' }]);
    await log.append([use(2, 2), use(3, 2)]);
    const before = readFileSync(log.path, 'utf8').split('\n');
    const parsed: number[] = [];
    await log.retain(
      (e) => {
        parsed.push(e.seq);
        return e.seq !== 3;
      },
      (kind, step) => (kind === 'ack' ? true : step === 1 ? false : undefined),
    );
    // Line u1 dropped and a1 kept without parsing; only u2's entries were looked at.
    expect(parsed).toEqual([2, 3]);
    const after = readFileSync(log.path, 'utf8').split('\n');
    expect(after[0]).toBe(before[1]);
    expect(after.slice(1)).toEqual(['u2\t[["use",2,"e2",2,1002,""]]', '']);
  });
});

describe('the use journal on a local database', () => {
  it("a sample's leases are in the lease log (not the LanceDB table) when it returns; rollback and trim rewrite it", async () => {
    const db = freshDb(root);
    const cfg = { sampler: { type: 'fifo' }, seed: 3 } as const;
    const buf = await ExperienceBuffer.open(db, cfg);
    await buf.write(['a', 'b', 'c', 'd'].map((id) => exp(id)));
    const path = join(db, 'experiences_uses.lance', LEASE_LOG_FILE);
    const s1 = await buf.sample(2, { step: 1 });
    expect(s1.experiences.map((e) => e.id)).toEqual(['a', 'b']);
    const logged = (await new LeaseLog(path).readAll()).map((e) => [e.kind, e.id, e.step]);
    expect(logged).toEqual([
      ['use', 'a', 1],
      ['use', 'b', 1],
    ]);
    expect(await buf.journal.table.countRows()).toBe(0);
    await buf.ack(1);
    await buf.sample(2, { step: 2 });
    // A crash: the trainer resumes from step 1, so step 2's leases are rolled back.
    const again = await ExperienceBuffer.open(db, cfg);
    expect((await again.recover(1)).rolledBack).toBe(2);
    expect((await again.journal.readAll()).map((e) => [e.kind, e.id, e.step])).toEqual([
      ['use', 'a', 1],
      ['use', 'b', 1],
      ['ack', '', 1],
    ]);
    expect((await again.sample(2, { step: 2 })).experiences.map((e) => e.id)).toEqual(['c', 'd']);
    await again.ack(2);
    // The fold writes the acknowledged uses into the table and trims them from the log.
    expect(await again.flush()).toBe(4);
    expect((await again.journal.readAll()).map((e) => [e.kind, e.step])).toEqual([['ack', 2]]);
    expect(again.bookkeeping().map((r) => [r.id, r.useCount, r.pending])).toEqual([
      ['a', 1, 0],
      ['b', 1, 0],
      ['c', 1, 0],
      ['d', 1, 0],
    ]);
    await again.close();
    await buf.close().catch(() => undefined);
  });

  it('entries an older buffer committed to the LanceDB table still replay, and a rollback removes them', async () => {
    const db = freshDb(root);
    const cfg = { sampler: { type: 'fifo' }, seed: 3 } as const;
    const buf = await ExperienceBuffer.open(db, cfg);
    await buf.write(['a', 'b', 'c'].map((id) => exp(id)));
    await buf.close();
    // What a buffer before the lease log wrote: a lease for step 1 in the table itself.
    const first = await ExperienceBuffer.open(db, cfg);
    await first.journal.table.add([{ kind: 'use', seq: 0, id: 'a', step: 1, at: 5, reason: '' }]);
    await first.close();
    const reopened = await ExperienceBuffer.open(db, cfg);
    expect(reopened.bookkeeping().map((r) => [r.id, r.pending])).toEqual([
      ['a', 1],
      ['b', 0],
      ['c', 0],
    ]);
    expect((await reopened.recover(null)).rolledBack).toBe(1);
    expect(await reopened.journal.table.countRows()).toBe(0);
    expect((await reopened.sample(3, { step: 1 })).experiences.map((e) => e.id)).toEqual(['a', 'b', 'c']);
    await reopened.close();
  });
});
