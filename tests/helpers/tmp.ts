import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** A fresh temp folder removed after the test file finishes. */
export function tempDir(prefix = 'winnow-test-', parent = tmpdir()): string {
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
