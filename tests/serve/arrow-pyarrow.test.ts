import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeRun, startServe } from '../../src/serve/serve-start.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, serveConfig } from './helpers.ts';

const hasPyarrow = spawnSync('python3', ['-c', 'import pyarrow']).status === 0;
if (!hasPyarrow)
  console.warn(
    'tests/serve: the Python package pyarrow is not importable; the pyarrow read of the Arrow batch is skipped',
  );

/** Through the example client's sample_arrow, read with pyarrow: the schema and rows as Python sees them. */
const READ = `
import json, sys
sys.path.insert(0, ${JSON.stringify(join(REPO_ROOT, 'examples'))})
import pyarrow.ipc as ipc
from serve_client import WinnowClient
lease, raw = WinnowClient(sys.argv[1]).sample_arrow(n=8, model_version=3)
t = ipc.open_stream(raw).read_all()
print(json.dumps({
  "lease": lease,
  "meta": {k.decode(): v.decode() for k, v in (t.schema.metadata or {}).items()},
  "types": {f.name: str(f.type) for f in t.schema},
  "ids": t.column("id").to_pylist(),
  "logprobs": t.column("logprobs").to_pylist(),
  "action_mask": t.column("action_mask").to_pylist(),
}))
`;

describe.skipIf(!hasPyarrow)('the Arrow batch as pyarrow reads it', () => {
  const dir = tempDir('winnow-serve-pyarrow-');
  let run: ServeRun;
  beforeAll(async () => {
    run = await startServe({ configFile: serveConfig(dir), host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    await run?.stop('done');
  });

  it('the trainer batch format: typed lists (not strings), the lease in header and metadata, response-layout arrays', async () => {
    const sel = (await call(run.url, 'POST', '/v1/select', { body: { n: 1 } })).json as { taskIds: string[] };
    const id = sel.taskIds[0]!;
    const w = await call(run.url, 'POST', '/v1/experiences', {
      body: {
        experiences: [
          {
            taskId: id,
            response: 'a',
            reward: 1,
            modelVersion: 3,
            tokens: [1, 2, 3, 4],
            promptLength: 2,
            logprobs: [-0.5, -0.25],
            actionMask: [1, 0],
          },
          {
            taskId: id,
            response: 'b',
            reward: 0,
            modelVersion: 3,
            tokens: [1, 2, 5],
            promptLength: 2,
            logprobs: [-2],
          },
        ],
      },
    });
    expect(w.status).toBe(200);
    // Asynchronous: the server answering the client runs in this process.
    const r = await promisify(execFile)('python3', ['-c', READ, run.url], {
      encoding: 'utf8',
      timeout: 60_000,
      // Importing examples/serve_client.py must not leave a __pycache__ folder in the repository.
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out.lease).toBe(1);
    expect(out.meta).toEqual({ 'winnow.lease': '1', 'winnow.skipped': '0' });
    // The external trainers' batch format (docs/trainers.md) plus the importance weight and the
    // replay columns an off-policy correction reads (use_count, off_policy, behavior_logprob).
    expect(out.types).toEqual({
      id: 'string',
      task_id: 'string',
      group_id: 'string',
      run_index: 'int32',
      model_version: 'int32',
      explore_step: 'int32',
      prompt: 'string',
      response: 'string',
      tokens: 'list<item: int32 not null>',
      prompt_length: 'int32',
      logprobs: 'list<item: float not null>',
      action_mask: 'list<item: int8 not null>',
      advantages: 'list<item: float not null>',
      advantage: 'float',
      reward: 'double',
      expert: 'int8',
      truncated: 'int8',
      weight: 'double',
      use_count: 'int32',
      off_policy: 'int8',
      behavior_logprob: 'double',
    });
    expect(out.ids).toEqual([`s1:${id}#0`, `s1:${id}#1`]);
    expect(out.logprobs).toEqual([[-0.5, -0.25], [-2]]);
    // An empty mask is sent filled: every response token is trained on.
    expect(out.action_mask).toEqual([[1, 0], [1]]);
  }, 60_000);
});
