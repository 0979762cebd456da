import { describe, expect, it } from 'vitest';
import { resolveEnvironment } from '../../src/agents/environment-registry.ts';
import { type EpisodeOptions, runEpisode } from '../../src/agents/episode.ts';
import { guessNumberEnvironment } from '../../src/agents/guess-number-environment.ts';
import { toolEnvironment } from '../../src/agents/tool-environment.ts';
import type { Task } from '../../src/core/task.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../../src/models/rollout-model.ts';

const task = (prompt: string, meta: Task['meta'] = {}, answer?: string): Task =>
  ({ id: 't', taskset: 's', prompt, features: {}, meta, ...(answer ? { answer } : {}) }) as Task;

/** A model that answers from a list (cycling), with one token per character; records requests. */
function scripted(answers: string[], opts: { delayMs?: number } = {}) {
  const requests: GenerateRequest[] = [];
  const model: RolloutModel = {
    name: 'scripted',
    async generate(r) {
      requests.push(r);
      if (opts.delayMs)
        await new Promise((res, rej) => {
          const t = setTimeout(res, opts.delayMs);
          r.signal?.addEventListener('abort', () => {
            clearTimeout(t);
            rej(r.signal?.reason);
          });
        });
      const text = answers[(requests.length - 1) % answers.length]!;
      const g: Generation = {
        text,
        promptTokens: [],
        tokens: [...text].map((c) => c.charCodeAt(0)),
        logprobs: [...text].map(() => -1),
        finishReason: 'stop',
      };
      return [g];
    },
  };
  return { model, requests };
}

const opts = (o: Partial<EpisodeOptions> = {}): EpisodeOptions => ({
  environment: 'test',
  maxTurns: 8,
  maxTrajectoryTokens: 1000,
  episodeTimeoutMs: 10_000,
  toolCallFormat: 'native',
  maxTokens: 16,
  temperature: 1,
  seed: 5,
  ...o,
});

describe('environments', () => {
  it('guess_number is deterministic given the seed and rewards finding the secret', async () => {
    const secrets = [];
    for (const seed of [1, 2, 1]) {
      const env = guessNumberEnvironment.create(guessNumberEnvironment.params.parse({ max: 1000 }), {
        baseDir: '.',
      }) as Awaited<ReturnType<typeof guessNumberEnvironment.create>>;
      await env.reset(task('Guess.'), seed);
      // Binary search finds the secret; the hints tell which way.
      let lo = 1;
      let hi = 1000;
      for (;;) {
        const mid = Math.floor((lo + hi) / 2);
        const r = await env.step({ text: `${mid}`, toolCalls: [] });
        if (r.observation === 'correct') {
          expect(r).toEqual({ observation: 'correct', reward: 1, done: true, info: { guess: mid } });
          secrets.push(mid);
          break;
        }
        if (r.observation === 'higher') lo = mid + 1;
        else hi = mid - 1;
      }
    }
    expect(secrets[0]).toBe(secrets[2]);
    expect(secrets[0]).not.toBe(secrets[1]);
  });

  it('an episode of guess_number: a turn per guess, the invalid one rewarded invalidReward, observations as user turns', async () => {
    const env = await guessNumberEnvironment.create(
      guessNumberEnvironment.params.parse({ invalidReward: -0.5 }),
      { baseDir: '.' },
    );
    const { model } = scripted(['50', 'hmm', '30', '42']);
    const ep = await runEpisode(env, task('Guess.', { secret: 42 }), model, opts());
    expect(ep.trajectory.messages.map((m) => `${m.role}:${m.content}`)).toEqual([
      'user:Guess. It is between 1 and 100; you have 7 guesses.',
      'assistant:50',
      'user:lower',
      'assistant:hmm',
      'user:Say a number.',
      'assistant:30',
      'user:higher',
      'assistant:42',
    ]);
    expect(ep.trajectory.turns.map((t) => t.reward)).toEqual([0, -0.5, 0, 1]);
    expect(ep.trajectory.stopReason).toBe('done');
  });

  it('limits: max turns, trajectory tokens and the wall-clock budget end an episode as it stands', async () => {
    const make = () =>
      guessNumberEnvironment.create(guessNumberEnvironment.params.parse({ maxGuesses: 50 }), {
        baseDir: '.',
      });
    const t = task('Guess.', { secret: 99 });
    const turns = await runEpisode(await make(), t, scripted(['1']).model, opts({ maxTurns: 3 }));
    expect([turns.trajectory.stopReason, turns.trajectory.turns.length]).toEqual(['max_turns', 3]);
    const tokens = await runEpisode(
      await make(),
      t,
      scripted(['1234']).model,
      opts({ maxTrajectoryTokens: 10 }),
    );
    // 4 tokens a turn, no prompt tokens reported: 3 turns fill 10, the third given only 2 tokens of room.
    expect(tokens.trajectory.stopReason).toBe('max_tokens');
    expect(tokens.trajectory.turns.length).toBe(3);
    const s = scripted(['1'], { delayMs: 40 });
    const slow = await runEpisode(await make(), t, s.model, opts({ episodeTimeoutMs: 100 }));
    expect(slow.trajectory.stopReason).toBe('time_budget');
    expect(slow.trajectory.turns.length).toBeGreaterThanOrEqual(1);
    expect(slow.trajectory.turns.length).toBeLessThanOrEqual(3);
  });

  it('the text tool-call format: tools described in the system message, <tool_call> blocks executed', async () => {
    const env = await toolEnvironment.create(toolEnvironment.params.parse({ tools: ['calculator'] }), {
      baseDir: '.',
    });
    const { model, requests } = scripted([
      '<tool_call>{"name":"calculator","arguments":{"a":456,"op":"+","b":789}}</tool_call>',
      '1245',
    ]);
    const ep = await runEpisode(env, task('456+789=', {}, '1245'), model, opts({ toolCallFormat: 'text' }));
    expect(requests[0]!.tools).toBeUndefined();
    expect(requests[0]!.messages![0]!.role).toBe('system');
    expect(ep.trajectory.messages.slice(1).map((m) => [m.role, m.content, m.tool_call_id ?? null])).toEqual([
      ['user', '456+789=', null],
      [
        'assistant',
        '<tool_call>{"name":"calculator","arguments":{"a":456,"op":"+","b":789}}</tool_call>',
        null,
      ],
      ['tool', '1245', 'call_0_0'],
      ['assistant', '1245', null],
    ]);
    expect(ep.trajectory.turns.map((t) => t.reward)).toEqual([0, 1]);
    expect(ep.trajectory.counts.validCalls).toBe(1);
  });

  it('a user environment named by module resolves with its params; a bad one is named', async () => {
    const r = await resolveEnvironment(
      { module: './fixtures/chain-env.ts', export: 'ChainEnv', params: { steps: 3 } },
      { baseDir: import.meta.dirname, path: 'explorer.workflow.params.environment' },
    );
    expect(r.label).toBe('module:./fixtures/chain-env.ts#ChainEnv');
    const env = await r.def.create(r.params, { baseDir: '.' });
    const ep = await runEpisode(env, task('10'), scripted(['17', '0', '0']).model, opts({ seed: 3 }));
    expect(ep.trajectory.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      '10+7=',
      '17+9=',
      '26+1=',
    ]);
    expect(ep.trajectory.turns.map((t) => t.reward)).toEqual([0.5, 0, 0]);
    await expect(
      resolveEnvironment(
        { module: './fixtures/chain-env.ts', export: 'ChainEnv', params: { steps: 0 } },
        { baseDir: import.meta.dirname, path: 'explorer.workflow.params.environment' },
      ),
    ).rejects.toThrow(/explorer\.workflow\.params\.environment\.params\.steps/);
    const bad = { reset: () => 'go', step: () => ({ reward: Number.NaN, done: true }) };
    await expect(runEpisode(bad, task('x'), scripted(['a']).model, opts())).rejects.toThrow(
      "environment 'test' step 0 returned a bad result: reward: Invalid input: expected number, received NaN",
    );
  });
});

describe('calculator_choice (the tiny policy demo)', () => {
  it("an answer starting with '=' calls the calculator: its exact result is the answer, worth 1 − toolCost", async () => {
    const { calculatorChoiceEnvironment } = await import('../../src/agents/calculator-choice-environment.ts');
    const make = (tool: boolean) =>
      calculatorChoiceEnvironment.create(calculatorChoiceEnvironment.params.parse({ tool, toolCost: 0.5 }), {
        baseDir: '.',
      });
    const t = task('456+789=', {}, '1245');
    const called = await runEpisode(await make(true), t, scripted(['=']).model, opts());
    expect(called.trajectory.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', '456+789='],
      ['assistant', '='],
      ['tool', '1245'],
    ]);
    expect([called.trajectory.turns[0]!.reward, called.trajectory.counts.toolCalls]).toEqual([0.5, 1]);
    const own = await runEpisode(await make(true), t, scripted(['1245']).model, opts());
    expect([own.trajectory.turns[0]!.reward, own.trajectory.counts.toolCalls]).toEqual([1, 0]);
    const noTool = await runEpisode(await make(false), t, scripted(['=']).model, opts());
    expect([noTool.trajectory.turns[0]!.reward, noTool.trajectory.counts.toolCalls]).toEqual([0, 0]);
  });
});
