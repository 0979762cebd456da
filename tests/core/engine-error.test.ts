import { describe, expect, it } from 'vitest';
import {
  engineErrorLine,
  isEngineMessage,
  storageFaultLine,
  storageFaultOf,
  translateEngineError,
} from '../../src/core/engine-error.ts';
import { WinnowError } from '../../src/core/errors.ts';

/** The message LanceDB 0.2x gave on a full tmpfs (issue 35), verbatim but for the hash. */
const DISK_FULL = new Error(
  'lance error: LanceError(IO): No space left on device (os error 28), /usr/local/cargo/registry/src/index.crates.io-1949cf8c6b5b557f/lance-file-12.0.0/src/writer/structural.rs:188:9\nCaused by: LanceError(IO): No space left on device (os error 28), /usr/local/cargo/registry/src/index.crates.io-1949cf8c6b5b557f/lance-io-12.0.0/src/local.rs:12:3',
);

describe('engine errors as one line', () => {
  it('a full disk names the table, what it was doing, the outcome and a next step', () => {
    const e = translateEngineError(DISK_FULL, {
      doing: 'writing tasks',
      db: '/data/db',
      table: 'tasks',
      outcome: 'run r1 was rolled back to version 3',
    });
    expect(e).toBeInstanceOf(WinnowError);
    expect(e.message).toBe(
      "/data/db: table 'tasks': writing tasks failed: the disk is full (no space left on device); run r1 was rolled back to version 3; free space on that disk, or pass --db a folder on a disk with room, then run again",
    );
    expect(e.cause).toBe(DISK_FULL);
  });

  it('Cargo source paths of any registry, Caused-by chains and debug structures are dropped', () => {
    expect(engineErrorLine(DISK_FULL)).toBe('lance error: No space left on device (os error 28)');
    expect(
      engineErrorLine(
        new Error(
          'Invalid input, Failed to connect: IO { source: Generic { store: "x" } }, /a/.cargo/b/src/c.rs:1:2',
        ),
      ),
    ).toBe('Invalid input, Failed to connect');
    expect(engineErrorLine(new Error('  '))).toBe('unknown error');
  });

  it('storage faults are told from their OS code or Node error code; other errors are not', () => {
    expect(storageFaultOf(DISK_FULL)?.kind).toBe('disk-full');
    expect(storageFaultOf(Object.assign(new Error('write failed'), { code: 'ENOSPC' }))?.kind).toBe(
      'disk-full',
    );
    expect(storageFaultOf(new Error('Permission denied (os error 13)'))?.kind).toBe('permission');
    expect(storageFaultOf(new Error('Read-only file system (os error 30)'))?.kind).toBe('read-only');
    expect(storageFaultOf(new Error('operator boom'))).toBeNull();
    const enospc = Object.assign(new Error('ENOSPC: no space left on device, open'), {
      code: 'ENOSPC',
      path: '/data/db/x',
    });
    expect(storageFaultLine(enospc, storageFaultOf(enospc)!)).toBe(
      '/data/db/x: the disk is full (no space left on device); free space on that disk, or pass --db a folder on a disk with room, then run again',
    );
    expect(isEngineMessage(DISK_FULL)).toBe(true);
    expect(isEngineMessage(new Error('expected {a: 1}'))).toBe(false);
  });

  it('our own errors pass through unchanged', () => {
    const own = new WinnowError('x');
    expect(translateEngineError(own, { doing: 'y' })).toBe(own);
  });
});
