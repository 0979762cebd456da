import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTrajectory } from '../../src/agents/trajectory.ts';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { FakeServer } from '../explorer/openai/fake-server.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-agent-openai-');
const server = new FakeServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const PROMPT = 'What is 123*45+7?';
const BAD_ARGS = '{"a":"5535","op":"plus","b":7}';

/**
 * Acceptance (issue #18): a 3-turn episode against the scripted OpenAI-compatible server — a
 * valid calculator call, a call with bad arguments, a final answer — run by `winnow run`'s own
 * loop (explore mode) and read back from the buffer table.
 */
describe('an agent episode with tool calls over an OpenAI-compatible server', () => {
  it('is stored with the exact messages, a mask over the model tokens only, per-step rewards and the invalid-call count', async () => {
    server.script('three-turns', [
      {
        content: null,
        toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"a":123,"op":"*","b":45}' }],
        tokenIds: [501, 502, 503],
        logprobs: [-0.1, -0.2, -0.3],
      },
      {
        content: null,
        toolCalls: [{ id: 'c2', name: 'calculator', arguments: BAD_ARGS }],
        tokenIds: [601, 602],
        logprobs: [-0.4, -0.5],
      },
      { content: '5542', tokenIds: [701, 702], logprobs: [-0.6, -0.7] },
    ]);
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 't1', prompt: PROMPT, answer: '5542' })}\n`);
    const config = smallRftConfig('agent-openai', {
      tasks: { path: tasks, mapping: { taskset: 'calc', id: 'id', prompt: 'prompt', answer: 'answer' } },
      heldout: undefined,
      explorer: {
        model: {
          type: 'openai',
          params: { model: 'm', baseUrl: server.url('script', 'three-turns'), endpoint: 'chat', retries: 0 },
        },
        workflow: {
          type: 'agent',
          params: { environment: { type: 'tools', params: { invalidCallReward: -0.25 } }, maxTurns: 5 },
        },
        reward: 'exact_match',
        repeat: 1,
        batchTasks: 1,
      },
      experienceOps: [],
      lifecycle: { mode: 'explore', steps: 1 },
    });
    const db = join(dir, 'db');
    const report = await runRft(config, { baseDir: dir, dbDir: db, runDir: join(dir, 'run') });
    const buffer = await ExperienceBuffer.open(db, { table: `${report.runId}_experiences` });
    const rows = await buffer.read();
    await buffer.close();
    expect(rows).toHaveLength(1);
    const e = rows[0]!;

    // The exact message sequence, tool calls and tool results included.
    const t = readTrajectory(e);
    if (typeof t === 'string') throw new Error(t);
    const invalidContent = 'error (invalid_arguments): a: Invalid input: expected number, received string';
    expect(t.messages).toEqual([
      { role: 'user', content: PROMPT },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'calculator', arguments: '{"a":123,"op":"*","b":45}' },
          },
        ],
      },
      { role: 'tool', content: '5535', tool_call_id: 'c1' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'calculator', arguments: BAD_ARGS } }],
      },
      { role: 'tool', content: invalidContent, tool_call_id: 'c2' },
      { role: 'assistant', content: '5542' },
    ]);
    // What the server was sent: the tools in the standard format, and the conversation so far.
    const sent = server.seen('script', 'three-turns').map((r) => r.body);
    expect(sent).toHaveLength(3);
    expect((sent[0]!.tools as { function: { name: string } }[]).map((x) => x.function.name)).toEqual([
      'calculator',
      'evaluate',
      'lookup',
    ]);
    expect(sent[2]!.messages).toEqual(t.messages.slice(0, 5));

    // Tokens: prompt [2, 1000+len], then model turns (mask 1) and tool messages (mask 0).
    expect(e.promptLength).toBe(2);
    expect(e.tokens).toEqual([
      2,
      1000 + PROMPT.length,
      501,
      502,
      503,
      3,
      1004,
      601,
      602,
      3,
      1000 + invalidContent.length,
      701,
      702,
    ]);
    expect(e.actionMask).toEqual([1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1]);
    expect(e.logprobs.map((x) => Math.round(x * 10) / 10)).toEqual([
      -0.1, -0.2, -0.3, 0, 0, -0.4, -0.5, 0, 0, -0.6, -0.7,
    ]);
    expect(t.turns.map((x) => x.tokenSpan)).toEqual([
      [0, 3],
      [5, 7],
      [9, 11],
    ]);

    // Per-step rewards, the episode reward, and the call counts.
    expect(t.turns.map((x) => x.reward)).toEqual([0, -0.25, 1]);
    expect(e.reward).toBe(0.75);
    expect(t.counts).toEqual({
      toolCalls: 2,
      validCalls: 1,
      invalidCalls: 1,
      malformed: 0,
      unknownTool: 0,
      invalidArguments: 1,
      toolError: 0,
      timeout: 0,
    });
    expect(e.info.invalid_calls).toBe(1);
    expect(t.stopReason).toBe('done');
    expect(e.response).toBe('5542');
  });
});
