import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { parseQueueUrl } from '../../src/scale/queue-url.ts';
import {
  contextKeyOf,
  RolloutResultSchema,
  rolloutJobId,
  rolloutJobPrefix,
} from '../../src/scale/rollout-job.ts';
import { decodeWire, encodeWire } from '../../src/scale/wire.ts';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';
import { writeConfig } from './scale-run-harness.ts';

const exp = (id: string, reward: number) => ({
  id,
  taskId: 't1',
  taskset: 'arith',
  groupId: 'g1',
  runIndex: 0,
  modelVersion: 0,
  exploreStep: 1,
  response: '42',
  reward,
});

describe('what crosses the queue', () => {
  it('keeps NaN rewards and non-finite numbers (plain JSON would turn them into null)', () => {
    expect(decodeWire(encodeWire({ a: [Number.NEGATIVE_INFINITY, 1], b: Number.POSITIVE_INFINITY }))).toEqual(
      {
        a: [Number.NEGATIVE_INFINITY, 1],
        b: Number.POSITIVE_INFINITY,
      },
    );
    const result = {
      experiences: [exp('a', Number.NaN), exp('b', 1), exp('c', 0.5)],
      failures: [],
      metrics: { timeouts: 0, retries: 1, emptyResponses: 0 },
      worker: 'host pid 1',
    };
    const back = RolloutResultSchema.parse(decodeWire(encodeWire(result)));
    expect(back.experiences.map((e) => e.reward)).toEqual([Number.NaN, 1, 0.5]);
    expect(back.metrics.retries).toBe(1);
    expect(JSON.parse(JSON.stringify({ r: Number.NaN })).r).toBeNull();
  });

  it('names a job by run, step, version and task only, under its run context', () => {
    const ctx = 'winnow:context:00112233aabbccdd';
    const id = rolloutJobId(ctx, 3, 0, 't1');
    expect(rolloutJobId(ctx, 3, 0, 't1')).toBe(id);
    expect(
      new Set([
        id,
        rolloutJobId(ctx, 4, 0, 't1'),
        rolloutJobId(ctx, 3, 1, 't1'),
        rolloutJobId('winnow:context:ffeeddccbbaa9988', 3, 0, 't1'),
        rolloutJobId(ctx, 3, 0, 't2'),
      ]).size,
    ).toBe(5);
    expect(id).toMatch(/^r-00112233aabbccdd-3-[0-9a-f]{20}$/);
    expect(id.startsWith(rolloutJobPrefix(ctx))).toBe(true);
  });

  it('keys a run context by database, run id, start and config hash: each one changes it', () => {
    const run = { dbDir: '/d/db', runId: 'r1', startedAt: 1_700_000_000_000, configHash: 'abc' };
    const key = contextKeyOf(run);
    expect(key).toMatch(/^winnow:context:[0-9a-f]{16}$/);
    expect(contextKeyOf({ ...run })).toBe(key);
    const others = [
      contextKeyOf({ ...run, dbDir: '/d/db2' }),
      contextKeyOf({ ...run, runId: 'r2' }),
      contextKeyOf({ ...run, startedAt: run.startedAt + 1 }),
      contextKeyOf({ ...run, configHash: 'abd' }),
    ];
    expect(new Set([key, ...others]).size).toBe(5);
  });

  it('parses --queue addresses and refuses others with the option named', () => {
    expect(parseQueueUrl('redis://10.0.0.5:6380/2')).toMatchObject({
      host: '10.0.0.5',
      port: 6380,
      db: 2,
      tls: false,
    });
    expect(parseQueueUrl('redis://:s%40cret@h')).toMatchObject({ host: 'h', port: 6379, password: 's@cret' });
    expect(() => parseQueueUrl('http://x:1')).toThrow(ConfigError);
    expect(() => parseQueueUrl('http://x:1')).toThrow(
      "--queue: 'http://x:1' is not a Redis address: expected redis://host:port",
    );
  });
});

describe('winnow run --queue refuses at the door, before anything is written', () => {
  const dir = tempDir('winnow-scale-door-');

  it('a Redis that cannot be reached: exit 2 naming --queue and the address', () => {
    const served = writeConfig(dir, 'http://127.0.0.1:9/v1', 1, 2);
    const r = winnow([
      'run',
      served,
      '--db',
      join(dir, 'db2'),
      '--runs-dir',
      join(dir, 'runs2'),
      '--queue',
      'redis://127.0.0.1:1',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^error: \S+scale\.yaml: --queue: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*\(start redis-server there, or check the address\)$/m,
    );
    expect(existsSync(join(dir, 'db2'))).toBe(false);
    expect(existsSync(join(dir, 'runs2'))).toBe(false);
  });
});
