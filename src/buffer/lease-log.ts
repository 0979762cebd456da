import { open, readFile, rename, truncate, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { DataError } from '../core/errors.ts';
import type { JournalEntry } from './experience-journal.ts';

/** One journal entry on a line's array: [kind, seq, id, step, at, reason]. */
const entrySchema = z.tuple([
  z.enum(['use', 'skip', 'ack']),
  z.number(),
  z.string(),
  z.number().int(),
  z.number(),
  z.string(),
]);
const lineSchema = z.array(entrySchema);

/**
 * Where the use journal's appends go on a local database: `log` (default) this file, `table` the
 * LanceDB table as before it (`WINNOW_LEASES=table`; benchmarks compare the two in one run).
 */
export function leaseMode(): 'log' | 'table' {
  return process.env.WINNOW_LEASES === 'table' ? 'table' : 'log';
}

/** The file name inside the journal table's folder (LanceDB leaves files it does not know alone). */
export const LEASE_LOG_FILE = 'winnow-leases.jsonl';

/**
 * The use journal's appends on a local disk: one line of JSON per append (a `sample`'s leases and
 * skips, an `ack`), written and `fdatasync`ed before the append returns. A LanceDB commit of the
 * same entries costs a data file, a manifest and a version file (3–13 ms here); this costs one
 * write and one flush (~0.4 ms), so a `sample` no longer waits on a LanceDB commit for its lease.
 *
 * Deletes (a trim after a fold, a rollback) rewrite the file whole: the kept lines go to a temporary
 * file, flushed, renamed over the log (atomic). A process killed mid-append leaves at most a torn last
 * line: that append never returned, so its sample never delivered; it is dropped when read.
 */
export class LeaseLog {
  readonly path: string;
  /** Whether a torn last line (left by a killed append) was cut off before this log's first append. */
  private repaired = false;

  constructor(path: string) {
    this.path = path;
  }

  /** Append one line and flush it to disk; returns once it is durable. */
  async append(entries: readonly JournalEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (!this.repaired) await this.cutTornLine();
    // Opened per append (two cheap calls): no handle outlives the buffer, and an append never goes
    // to a file a rewrite has just replaced.
    const h = await open(this.path, 'a');
    try {
      await h.write(`${JSON.stringify(entries.map(toTuple))}\n`);
      await h.datasync();
    } finally {
      await h.close();
    }
  }

  /** Cut a torn last line off, so the next line does not continue it. */
  private async cutTornLine(): Promise<void> {
    const text = await readFile(this.path).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return Buffer.alloc(0);
      throw err;
    });
    if (text.length > 0 && text[text.length - 1] !== 0x0a)
      await truncate(this.path, text.lastIndexOf(0x0a) + 1);
    this.repaired = true;
  }

  /** Every entry in the log, in append order (a torn last line left by a kill is left out). */
  async readAll(): Promise<JournalEntry[]> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const lines = text.split('\n');
    const out: JournalEntry[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === '') continue;
      let parsed: z.infer<typeof lineSchema> | null = null;
      try {
        parsed = lineSchema.parse(JSON.parse(line));
      } catch {
        parsed = null;
      }
      if (parsed === null) {
        // Only the very last line can be torn (its append never returned).
        if (i === lines.length - 1) break;
        throw new DataError({
          file: this.path,
          row: i + 1,
          message: `not a lease log line (a JSON array of [kind, seq, id, step, at, reason]); was the file edited by hand? Restore it, or delete it to forget the leases it holds`,
        });
      }
      for (const t of parsed) out.push(fromTuple(t));
    }
    return out;
  }

  /** Keep only the entries `keep` accepts (one atomic rewrite); nothing to drop: nothing written. */
  async retain(keep: (e: JournalEntry) => boolean): Promise<void> {
    const all = await this.readAll();
    const kept = all.filter(keep);
    if (kept.length === all.length) return;
    const tmp = `${this.path}.tmp`;
    await writeFile(tmp, kept.length === 0 ? '' : `${JSON.stringify(kept.map(toTuple))}\n`, { flush: true });
    await rename(tmp, this.path);
    this.repaired = true;
  }
}

function toTuple(e: JournalEntry): z.infer<typeof entrySchema> {
  return [e.kind, e.seq, e.id, e.step, e.at, e.reason];
}

function fromTuple([kind, seq, id, step, at, reason]: z.infer<typeof entrySchema>): JournalEntry {
  return { kind, seq, id, step, at, reason };
}
