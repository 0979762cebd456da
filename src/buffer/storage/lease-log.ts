import { open, readFile, rename, truncate, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { DataError } from '../../core/errors.ts';
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
      await h.write(linesOf(entries));
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
      const parsed = parseLine(line);
      if (parsed === null) {
        // Only the very last line can be torn (its append never returned).
        if (i === lines.length - 1) break;
        throw badLine(this.path, i + 1);
      }
      out.push(...parsed);
    }
    return out;
  }

  /**
   * Keep only the entries `keep` accepts (one atomic rewrite; nothing dropped: nothing written).
   * `byLine` decides a whole line from its header (leases/skips or acks, and their one step) —
   * `true` keep, `false` drop, `undefined` look at its entries — so a trim copies the kept lines as
   * they are instead of parsing the whole log.
   */
  async retain(
    keep: (e: JournalEntry) => boolean,
    byLine: (kind: 'use' | 'ack', step: number) => boolean | undefined = () => undefined,
  ): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const lines = text.split('\n');
    // A torn last line is dropped with the rewrite (its append never returned).
    if (!text.endsWith('\n')) lines.pop();
    const out: string[] = [];
    let changed = !text.endsWith('\n') && text.length > 0;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === '') continue;
      const head = HEADER.exec(line);
      const whole = head ? byLine(head[1] === 'a' ? 'ack' : 'use', Number(head[2])) : undefined;
      if (whole === true) out.push(line);
      else if (whole === false) changed = true;
      else {
        const entries = parseLine(line);
        if (entries === null) throw badLine(this.path, i + 1);
        const kept = entries.filter(keep);
        if (kept.length !== entries.length) changed = true;
        if (kept.length > 0) out.push(linesOf(kept).slice(0, -1));
      }
    }
    if (!changed) return;
    const tmp = `${this.path}.tmp`;
    await writeFile(tmp, out.length === 0 ? '' : `${out.join('\n')}\n`, { flush: true });
    await rename(tmp, this.path);
    this.repaired = true;
  }
}

/** A line's entries (after its header), or null when it is not a lease log line. */
function parseLine(line: string): JournalEntry[] | null {
  try {
    const raw: unknown = JSON.parse(line.slice(line.indexOf('\t') + 1));
    // The schema's check by hand (zod costs ~10 µs an entry, and a log holds up to `foldRows`
    // entries); zod itself only for a line that fails it.
    const parsed = isLine(raw) ? raw : lineSchema.parse(raw);
    return parsed.map(fromTuple);
  } catch {
    return null;
  }
}

function badLine(path: string, row: number): DataError {
  return new DataError({
    file: path,
    row,
    message: `not a lease log line (a JSON array of [kind, seq, id, step, at, reason]); was the file edited by hand? Restore it, or delete it to forget the leases it holds`,
  });
}

/** A line's header: `u<step>` (leases and skips of one step) or `a<step>` (acks of one step), then a tab. */
const HEADER = /^([ua])(-?\d+)\t/;

/** Entries as lines of one kind class and one step each, in order, each with its header. */
function linesOf(entries: readonly JournalEntry[]): string {
  let out = '';
  let i = 0;
  while (i < entries.length) {
    const first = entries[i]!;
    const cls = first.kind === 'ack' ? 'a' : 'u';
    let j = i + 1;
    while (
      j < entries.length &&
      (entries[j]!.kind === 'ack' ? 'a' : 'u') === cls &&
      entries[j]!.step === first.step
    )
      j++;
    out += `${cls}${first.step}\t${JSON.stringify(entries.slice(i, j).map(toTuple))}\n`;
    i = j;
  }
  return out;
}

const KINDS = new Set(['use', 'skip', 'ack']);

function isLine(raw: unknown): raw is z.infer<typeof lineSchema> {
  if (!Array.isArray(raw)) return false;
  for (const e of raw) {
    if (!Array.isArray(e) || e.length !== 6) return false;
    const [kind, seq, id, step, at, reason] = e as unknown[];
    if (!KINDS.has(kind as string) || typeof seq !== 'number' || typeof id !== 'string') return false;
    if (!Number.isInteger(step) || typeof at !== 'number' || typeof reason !== 'string') return false;
  }
  return true;
}

function toTuple(e: JournalEntry): z.infer<typeof entrySchema> {
  return [e.kind, e.seq, e.id, e.step, e.at, e.reason];
}

function fromTuple([kind, seq, id, step, at, reason]: z.infer<typeof entrySchema>): JournalEntry {
  return { kind, seq, id, step, at, reason };
}
