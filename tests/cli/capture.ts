import { vi } from 'vitest';
import { main } from '../../src/cli/main.ts';

/** Run the CLI in-process (fast: no Node start-up) and capture what it writes to stdout and stderr. */
export async function captureMain(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}
