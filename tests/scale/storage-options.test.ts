import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../src/core/errors.ts';
import { parseRftConfig } from '../../src/lifecycle/run/rft-run.ts';
import { parseStorageOptionFlags, storageOptionsOf } from '../../src/store/storage-options.ts';
import { REPO_ROOT, winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/** A loopback port nothing listens on (taken, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function tinyRun(dir: string, extra = ''): string {
  const file = join(dir, 'run.yaml');
  writeFileSync(
    file,
    [
      'name: store',
      'kind: rft',
      'seed: 3',
      'tasks:',
      `  path: ${join(REPO_ROOT, 'datasets/arithmetic/train.jsonl')}`,
      '  mapping: { taskset: arithmetic, id: id, prompt: prompt, answer: answer }',
      '  limit: 30',
      'selector: { type: bots, params: { m: 4, rho: 0 } }',
      'explorer:',
      `  model: { type: tiny, params: { path: ${join(REPO_ROOT, 'datasets/arithmetic/warm-start')} } }`,
      '  workflow: single_turn',
      '  reward: exact_match',
      '  repeat: 2',
      '  batchTasks: 3',
      '  maxTokens: 4',
      'experienceOps: [{ op: invalid_reward }, { op: grpo }]',
      'trainer: { type: policy_gradient }',
      'lifecycle: { mode: sync, steps: 2, checkpointEvery: 1 }',
      'monitors: []',
      extra,
      '',
    ].join('\n'),
  );
  return file;
}

describe('storage options and database URIs (object storage)', () => {
  it('parses --storage-option KEY=VALUE pairs (values may hold = and :), refusing others naming the flag', () => {
    expect(parseStorageOptionFlags(['aws_region=eu-west-1', 'aws_endpoint=http://h:9000/?a=b'])).toEqual({
      aws_region: 'eu-west-1',
      aws_endpoint: 'http://h:9000/?a=b',
    });
    expect(() => parseStorageOptionFlags(['region'])).toThrow(ConfigError);
    expect(() => parseStorageOptionFlags(['=x'])).toThrow("--storage-option: '=x': expected KEY=VALUE");
    // The config's map, then the flags over it; an invalid config map is left to the config's schema.
    expect(storageOptionsOf({ storageOptions: { a: '1', b: '2' } }, ['b=3'])).toEqual({ a: '1', b: '3' });
    expect(storageOptionsOf({ storageOptions: { a: 1 } }, undefined)).toEqual({});
  });

  it('a database URI is opened by LanceDB, not resolved as a folder: a run on memory:// writes no local database', () => {
    const dir = tempDir('winnow-store-mem-');
    const r = winnow(['run', tinyRun(dir), '--db', 'memory://winnow-test', '--runs-dir', 'runs', '--quiet'], {
      cwd: dir,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['run.yaml', 'runs']);
    const [run] = readdirSync(join(dir, 'runs'));
    expect(
      readFileSync(join(dir, 'runs', run!, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(2);
  }, 60_000);

  it('the storage options reach LanceDB: an unreachable s3:// endpoint fails in one line naming the URI and the endpoint, nothing written', async () => {
    const dir = tempDir('winnow-store-s3-');
    const port = await closedPort();
    const r = winnow(
      [
        'run',
        tinyRun(dir, 'storageOptions: { aws_region: us-east-1, allow_http: "true" }'),
        '--db',
        's3://winnow-test-bucket/db',
        '--runs-dir',
        'runs',
        '--storage-option',
        `aws_endpoint=http://127.0.0.1:${port},aws_access_key_id=k,aws_secret_access_key=s,client_max_retries=0`,
      ],
      { cwd: dir },
    );
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^error: s3://winnow-test-bucket/db: cannot open the database: request to http://127\\.0\\.0\\.1:${port}/winnow-test-bucket\\S* failed`,
      ),
    );
    expect(existsSync(join(dir, 'runs'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['run.yaml']);
  }, 60_000);

  it('storageOptions in the config is checked: a non-string value names the key', () => {
    const raw = parseYaml(
      readFileSync(tinyRun(tempDir('winnow-store-bad-'), 'storageOptions: { timeout: 30 }'), 'utf8'),
    );
    expect(() => parseRftConfig(raw)).toThrow(ConfigError);
    expect(() => parseRftConfig(raw)).toThrow(/storageOptions\.timeout/);
    const ok = parseRftConfig({ ...(raw as object), storageOptions: { timeout: '30s' } });
    expect(ok.storageOptions).toEqual({ timeout: '30s' });
  });
});
