/**
 * A single caller writing through `writeBehind`, killed by SIGKILL at random moments.
 * Usage: node write-behind-child.ts <dbDir> <logFile> <calls>
 *
 * Call c writes 6 experiences (ids w<c>-<k>). Logs, each appended synchronously (on disk before any
 * kill): `Q c` once call c is queued, `C c` once its `committed` settled, `D c` once a `durable()`
 * made after call c returned (every 7th call), `DONE` at the end.
 */
import { appendFileSync } from 'node:fs';
import { ExperienceBuffer } from '../../../src/buffer/experience-buffer.ts';
import { exp } from './make.ts';

export const WRITE_BEHIND_ROWS = 6;
export const WRITE_BEHIND_TABLE = 'behind';

async function main(): Promise<void> {
  const [dbDir, logFile, callsArg] = process.argv.slice(2) as [string, string, string];
  const log = (line: string) => appendFileSync(logFile, `${line}\n`);
  const buf = await ExperienceBuffer.open(dbDir, { table: WRITE_BEHIND_TABLE, sampler: { type: 'fifo' } });
  for (let c = 0; c < Number(callsArg); c++) {
    const rows = Array.from({ length: WRITE_BEHIND_ROWS }, (_, k) => exp(`w${c}-${k}`));
    const q = await buf.writeBehind(rows, { maxQueuedRows: 24 });
    log(`Q ${c}`);
    q.committed.then(() => log(`C ${c}`));
    if (c % 7 === 6) {
      await buf.durable();
      log(`D ${c}`);
    }
  }
  await buf.close();
  log('DONE');
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
