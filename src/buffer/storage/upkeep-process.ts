// The child process that runs a large buffer's background upkeep (upkeep-runner.ts starts it).
// LanceDB runs every table operation of a process on one shared native thread pool, so a fold (a
// merge of thousands of rows into a 1M-row table) or a compaction run inside the buffer's own
// process holds up the `sample` takes beside it for up to seconds. In a process of its own it is
// only one more claim on the CPU, which the operating system shares out fairly.
import * as lancedb from '@lancedb/lancedb';
import { tableFromIPC } from 'apache-arrow';
import { z } from 'zod';
import { commonJsArrow } from '../../io/arrow-ipc.ts';

// The fold's `mergeInsert` serializes with apache-arrow's CommonJS writer: install the all-null
// boolean fix on it (io/arrow-ipc.ts) before any write.
commonJsArrow();
process.env.LANCEDB_LOG ??= 'error';

const requestSchema = z.discriminatedUnion('op', [
  z.object({
    id: z.number(),
    op: z.literal('fold'),
    dir: z.string(),
    table: z.string(),
    rows: z.instanceof(Uint8Array),
  }),
  z.object({ id: z.number(), op: z.literal('open'), dir: z.string(), table: z.string() }),
  z.object({
    id: z.number(),
    op: z.literal('optimize'),
    dir: z.string(),
    table: z.string(),
    cutoffMs: z.number(),
  }),
]);
export type UpkeepRequest = z.infer<typeof requestSchema>;
export type UpkeepReply = { id: number; ok: true } | { id: number; ok: false; message: string };

const tables = new Map<string, Promise<lancedb.Table>>();

/** One table handle per (folder, table), reading the newest version on every operation. */
function open(dir: string, name: string): Promise<lancedb.Table> {
  const key = `${dir}\u0000${name}`;
  let t = tables.get(key);
  if (!t) {
    t = lancedb.connect(dir, { readConsistencyInterval: 0 }).then((c) => c.openTable(name));
    tables.set(key, t);
    // A table that could not be opened is tried again by the next job.
    t.catch(() => tables.delete(key));
  }
  return t;
}

async function serve(req: UpkeepRequest): Promise<void> {
  const table = await open(req.dir, req.table);
  if (req.op === 'fold')
    await table.mergeInsert(['id', 'seq']).whenMatchedUpdateAll().execute(tableFromIPC(req.rows));
  else if (req.op === 'optimize') await table.optimize({ cleanupOlderThan: new Date(req.cutoffMs) });
}

if (process.send) {
  // One job at a time, in arrival order (the parent sends one at a time anyway).
  let chain: Promise<void> = Promise.resolve();
  process.on('message', (raw: unknown) => {
    chain = chain.then(async () => {
      const parsed = requestSchema.safeParse(raw);
      const id = typeof (raw as { id?: unknown })?.id === 'number' ? (raw as { id: number }).id : -1;
      let reply: UpkeepReply;
      if (!parsed.success) reply = { id, ok: false, message: `bad upkeep request: ${parsed.error.message}` };
      else
        try {
          await serve(parsed.data);
          reply = { id, ok: true };
        } catch (err) {
          reply = { id, ok: false, message: err instanceof Error ? err.message : String(err) };
        }
      process.send?.(reply);
    });
  });
  // The buffer's process went away (closed, crashed, killed): nothing is left to do.
  process.on('disconnect', () => process.exit(0));
}
