import { WinnowError } from './errors.ts';

/**
 * LanceDB (Rust) and OS failures as one line a user can act on. Engine messages carry Rust source
 * locations (`…/cargo/registry/src/…/lance-file-12.0.0/src/writer/structural.rs:188:9`), debug
 * structures (`Error { kind: NotADirectory, … }`) and a repeated `Caused by:` chain; none of that
 * helps the user, and a full disk must read as a full disk. Shared by every command that writes
 * or reads tables (ingest, RFT runs, inspect, export, Studio) so they all say it the same way.
 */

/** A failure of the machine rather than of the data: what it is, and what to do about it. */
export interface StorageFault {
  kind: 'disk-full' | 'quota' | 'permission' | 'read-only';
  /** Lower case, no trailing punctuation: "the disk is full (no space left on device)". */
  what: string;
  /** The next step. */
  hint: string;
}

const FAULTS: { kind: StorageFault['kind']; test: RegExp; what: string; hint: string }[] = [
  {
    kind: 'disk-full',
    test: /ENOSPC|No space left on device|os error 28\b/i,
    what: 'the disk is full (no space left on device)',
    hint: 'free space on that disk, or pass --db a folder on a disk with room, then run again',
  },
  {
    kind: 'quota',
    test: /EDQUOT|Disk quota exceeded|os error 122\b/i,
    what: 'the disk quota is exceeded',
    hint: 'free space within your quota, or pass --db a folder elsewhere, then run again',
  },
  {
    kind: 'read-only',
    test: /EROFS|Read-only file system|os error 30\b/i,
    what: 'the file system is read-only',
    hint: 'pass --db a folder on a writable disk',
  },
  {
    kind: 'permission',
    test: /EACCES|EPERM|Permission denied|os error 13\b/i,
    what: 'permission denied',
    hint: "check the folder's owner and permissions, or pass --db a folder you can write",
  },
];

/** The storage fault behind `err` (its message or Node's `code`), or null for any other failure. */
export function storageFaultOf(err: unknown): StorageFault | null {
  const code = (err as { code?: unknown } | null)?.code;
  const text = `${typeof code === 'string' ? code : ''} ${err instanceof Error ? err.message : String(err)}`;
  const f = FAULTS.find((x) => x.test.test(text));
  return f ? { kind: f.kind, what: f.what, hint: f.hint } : null;
}

/** A storage fault as one line, led by the path a Node file-system error names: "<path>: the disk is full …; <hint>". */
export function storageFaultLine(err: unknown, fault: StorageFault): string {
  const path = (err as { path?: unknown } | null)?.path;
  return `${typeof path === 'string' ? `${path}: ` : ''}${fault.what}; ${fault.hint}`;
}

/** Rust source locations: `, /any/path/src/file.rs:123:45` (any crate, any registry folder). */
const RUST_SOURCE = /,?\s*[^\s,]*\.rs:\d+(?::\d+)?/g;

/** A message from the Rust engine (a source location, a Lance or Arrow error): cleaned before it is shown. */
export function isEngineMessage(err: unknown): boolean {
  const raw = err instanceof Error ? err.message : String(err);
  return /\.rs:\d+|LanceError|lance error|ArrowError|DataFusion/i.test(raw);
}

/**
 * The first line of an engine error without Rust source paths, `Caused by:` chains or debug
 * structures, at most 200 characters ("unknown error" when nothing is left).
 */
export function engineErrorLine(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  const line =
    raw
      .split('\n')[0]!
      .split(/\s*Caused by:/)[0]!
      .replace(RUST_SOURCE, '')
      .replace(/\bLanceError\((\w+)\):\s*/g, '')
      .replace(/\s*(\w+\s*)?\{.*$/, '')
      .replace(/\s+/g, ' ')
      .replace(/[:,;]\s*$/, '')
      .trim() || 'unknown error';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** What a failed engine call was doing, and where. */
export interface EngineErrorPlace {
  /** e.g. "writing tasks", "export of table 'tasks'". */
  doing: string;
  /** The database folder or URI. */
  db?: string;
  /** The table within it. */
  table?: string;
  /** What became of the work, e.g. "run X was rolled back to version 3". */
  outcome?: string;
}

/**
 * An engine or OS failure as one WinnowError line: where, what it was doing, why (a storage fault
 * in plain words, else the engine's cleaned first line), what became of the work, and the next
 * step for a storage fault. Our own errors pass through unchanged.
 */
export function translateEngineError(err: unknown, place: EngineErrorPlace): WinnowError {
  if (err instanceof WinnowError) return err;
  const where = [place.db, place.table !== undefined ? `table '${place.table}'` : undefined]
    .filter((p) => p !== undefined)
    .join(': ');
  const fault = storageFaultOf(err);
  const why = fault ? fault.what : engineErrorLine(err);
  const parts = [`${where ? `${where}: ` : ''}${place.doing} failed: ${why}`];
  if (place.outcome) parts.push(place.outcome);
  if (fault) parts.push(fault.hint);
  const e = new WinnowError(parts.join('; '));
  e.cause = err;
  return e;
}
