import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerServer } from '../../bench/scale-answer-server.ts';
import { startRedis, type TestRedis, warnIfNoRedis } from '../../bench/scale-redis.ts';
import type { Task } from '../../src/core/task.ts';
import type { RftParts } from '../../src/lifecycle/run/rft-parts.ts';
import { loadRftConfig } from '../../src/lifecycle/run/rft-run.ts';
import { Coordinator } from '../../src/scale/coordinator.ts';
import { parseQueueUrl } from '../../src/scale/queue-url.ts';
import { RolloutWorker } from '../../src/scale/rollout-worker.ts';
import { tempDir } from '../helpers/tmp.ts';

const noRedis = warnIfNoRedis();

/**
 * Weight sync under --queue: the coordinator loads each version's adapter on the server and routes
 * its own model to it (parts.serve); every rollout job carries that model name, and a worker's
 * requests name it — never the base model, never another version's adapter.
 */
describe.skipIf(noRedis)('weight sync with rollout workers', () => {
  const dir = tempDir('winnow-scale-ws-');
  let redis: TestRedis;
  const server = new AnswerServer(0);
  let coordinator: Coordinator | undefined;
  let worker: RolloutWorker | undefined;

  beforeAll(async () => {
    redis = await startRedis();
    await server.start();
  });
  afterAll(async () => {
    await worker?.close();
    await coordinator?.close();
    await server.stop();
    await redis?.stop();
  });

  it('each job is rolled out with the adapter of its version', async () => {
    const file = join(dir, 'ws.yaml');
    writeFileSync(
      file,
      [
        'name: ws',
        'kind: rft',
        'seed: 2',
        'tasks: { path: tasks.jsonl, mapping: { taskset: taskset, id: id, prompt: prompt, answer: answer } }',
        'explorer:',
        `  model: { type: openai, params: { model: base, baseUrl: "${server.url}", endpoint: completions, logprobs: false } }`,
        '  reward: math',
        '  repeat: 2',
        '  batchTasks: 3',
        '  weightSync: { type: http, url: "http://127.0.0.1:9/load", servedModel: "{name}" }',
        'lifecycle: { mode: explore, steps: 2 }',
        'monitors: []',
        '',
      ].join('\n'),
    );
    const tasks: Task[] = [1, 2, 3].map(
      (i) =>
        ({
          id: `t${i}`,
          taskset: 'a',
          prompt: `${i}+1=`,
          answer: String(i + 1),
          features: {},
          meta: {},
        }) as Task,
    );
    writeFileSync(join(dir, 'tasks.jsonl'), `${tasks.map((t) => JSON.stringify(t)).join('\n')}\n`);
    const config = loadRftConfig(file);
    const queue = parseQueueUrl(redis.url);
    const log = () => undefined;
    coordinator = new Coordinator(queue, { leaseTtlMs: 10_000, log });
    const rollouts = await coordinator.claim({
      runId: 'ws',
      dbDir: join(dir, 'db'),
      runDir: dir,
      bufferTable: 'ws_experiences',
      baseDir: dir,
      configFile: file,
      config,
      seed: 2,
      startedAt: Date.now(),
      configHash: 'test',
      onLeased: () => undefined,
    });
    // The coordinator's own model, as parts.serve(version) leaves it before each step.
    const model = { servedModel: 'ws-v0' as string | undefined };
    coordinator.attach({ explorer: { options: { model } }, buffer: {} } as unknown as RftParts);
    worker = new RolloutWorker({ queue, concurrency: 2, visibilityMs: 5_000, log });
    await worker.start();

    model.servedModel = 'ws-v3';
    const a = await rollouts.explore(tasks, 1, 3);
    expect(a.failures).toEqual([]);
    expect(a.experiences.map((e) => e.modelVersion)).toEqual([3, 3, 3, 3, 3, 3]);
    expect(server.models).toEqual(['ws-v3', 'ws-v3', 'ws-v3']);
    model.servedModel = 'ws-v4';
    await rollouts.explore(tasks, 2, 4);
    expect(server.models.slice(3)).toEqual(['ws-v4', 'ws-v4', 'ws-v4']);
    expect(worker.jobsDone).toBe(6);
  }, 60_000);
});
