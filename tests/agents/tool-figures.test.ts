import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FIGURE_KEYS, toolStepFigures } from '../../src/agents/tool-figures.ts';
import { metricInfo } from '../../src/lifecycle/report/compare/metric-catalog.ts';
import { loadRunComparison } from '../../src/lifecycle/report/compare/run-comparison.ts';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { FakeServer } from '../explorer/openai/fake-server.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';
import { episodeRow } from './helpers.ts';

/**
 * Issue 35, item 7: a tool-use run's step records carry its tool-call figures (`tool/…` keys in
 * metrics.jsonl), the report charts them, and Studio's run charts (the comparison loader) list them
 * with their labels. The episodes are scripted over an OpenAI-compatible server, so every count is
 * exact.
 */
const dir = tempDir('winnow-tool-figures-');
const server = new FakeServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const call = (id: string, name: string, args: string) => ({
  content: null,
  toolCalls: [{ id, name, arguments: args }],
  tokenIds: [501, 502],
  logprobs: [-0.1, -0.2],
});
const answer = (text: string) => ({ content: text, tokenIds: [701], logprobs: [-0.3] });

/** Step 1: a valid call, bad arguments, an unknown tool, the answer. Step 2: a tool error, a malformed call, the answer. */
const SCRIPT = [
  call('a1', 'calculator', '{"a":123,"op":"*","b":45}'),
  call('a2', 'calculator', '{"a":"x","op":"+","b":7}'),
  call('a3', 'nope', '{}'),
  answer('5542'),
  call('b1', 'calculator', '{"a":1,"op":"/","b":0}'),
  call('b2', 'calculator', '{"a":1,'),
  answer('5542'),
];

const STEP_1 = {
  'tool/episodes': 1,
  'tool/calls': 3,
  'tool/valid_calls': 1,
  'tool/invalid_calls': 2,
  'tool/malformed': 0,
  'tool/unknown_tool': 1,
  'tool/invalid_arguments': 1,
  'tool/errors': 0,
  'tool/timeouts': 0,
  'tool/calls_per_episode': 3,
  'tool/invalid_call_ratio': 2 / 3,
  'tool/episodes_without_calls': 0,
  'tool/turns_per_episode': 4,
};
const STEP_2 = {
  'tool/episodes': 1,
  'tool/calls': 2,
  'tool/valid_calls': 0,
  'tool/invalid_calls': 2,
  'tool/malformed': 1,
  'tool/unknown_tool': 0,
  'tool/invalid_arguments': 0,
  'tool/errors': 1,
  'tool/timeouts': 0,
  'tool/calls_per_episode': 2,
  'tool/invalid_call_ratio': 1,
  'tool/episodes_without_calls': 0,
  'tool/turns_per_episode': 3,
};

const toolKeys = (rec: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(rec).filter(([k]) => k.startsWith('tool/')));

describe('tool-use figures per step', () => {
  const runDir = join(dir, 'run');

  beforeAll(async () => {
    server.script('tools', SCRIPT);
    const tasks = join(dir, 'tasks.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 't1', prompt: 'What is 123*45+7?', answer: '5542' })}\n`);
    const config = smallRftConfig('tool-figures', {
      tasks: { path: tasks, mapping: { taskset: 'calc', id: 'id', prompt: 'prompt', answer: 'answer' } },
      heldout: undefined,
      explorer: {
        model: {
          type: 'openai',
          params: { model: 'm', baseUrl: server.url('script', 'tools'), endpoint: 'chat', retries: 0 },
        },
        workflow: { type: 'agent', params: { environment: { type: 'tools' }, maxTurns: 6 } },
        reward: 'exact_match',
        repeat: 1,
        batchTasks: 1,
      },
      experienceOps: [],
      lifecycle: { mode: 'explore', steps: 2 },
      monitors: [{ type: 'html_report' }],
    });
    await runRft(config, { baseDir: dir, dbDir: join(dir, 'db'), runDir });
  }, 120_000);

  it('metrics.jsonl: every tool/ figure of each step, exactly, after the throughput', () => {
    const lines = readFileSync(join(runDir, 'metrics.jsonl'), 'utf8').trim().split('\n');
    const recs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(recs.map((r) => r.step)).toEqual([1, 2]);
    expect(toolKeys(recs[0]!)).toEqual(STEP_1);
    expect(toolKeys(recs[1]!)).toEqual(STEP_2);
    const keys = Object.keys(recs[0]!);
    expect(keys.filter((k) => k.startsWith('tool/'))).toEqual(TOOL_FIGURE_KEYS);
    expect(keys.indexOf('tool/episodes')).toBe(keys.indexOf('rolloutsPerSecond') + 1);
  });

  it('the report has a tool-use section: three charts and the whole run’s figures', () => {
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    const section = html.slice(html.indexOf('<h2>Tool use</h2>'));
    expect(html).toContain('<h2>Tool use</h2>');
    for (const title of ['Tool calls per step', 'Tool calls per episode', 'Invalid-call ratio'])
      expect(section).toContain(`<figcaption>${title}</figcaption>`);
    const whole = Object.fromEntries(
      [...section.matchAll(/data-metric="(tool\/[a-z_]+)"><th>[a-z_]+<\/th><td data-value="([^"]+)"/g)].map(
        (m) => [m[1]!, Number(m[2])],
      ),
    );
    expect(whole).toEqual({
      'tool/episodes': 2,
      'tool/calls': 5,
      'tool/valid_calls': 1,
      'tool/invalid_calls': 4,
      'tool/malformed': 1,
      'tool/unknown_tool': 1,
      'tool/invalid_arguments': 1,
      'tool/errors': 1,
      'tool/timeouts': 0,
      'tool/calls_per_episode': 2.5,
      'tool/invalid_call_ratio': 0.8,
      'tool/episodes_without_calls': 0,
      'tool/turns_per_episode': 3.5,
    });
  });

  it('Studio’s run charts (the comparison loader) carry every figure with its label', async () => {
    const c = await loadRunComparison([runDir]);
    const tool = c.metrics.filter((m) => m.key.startsWith('tool/'));
    expect(tool.map((m) => m.key)).toEqual(TOOL_FIGURE_KEYS);
    const runId = c.runs[0]!.id;
    expect(c.series['tool/calls']![runId]).toEqual([3, 2]);
    expect(c.series['tool/errors']![runId]).toEqual([0, 1]);
    expect(tool.find((m) => m.key === 'tool/invalid_calls')!.label).toBe('invalid tool calls');
    expect(tool.find((m) => m.key === 'tool/invalid_call_ratio')!.unit).toBe('ratio');
  });
});

describe('toolStepFigures', () => {
  it('sums over episodes, means per episode, and ignores rows without a trajectory', () => {
    const a = episodeRow('a', 's1:t1', [
      { reward: 0, tokens: 2, calls: 2, invalid: 1 },
      { reward: 1, tokens: 1 },
    ]);
    const b = episodeRow('b', 's1:t1', [{ reward: 1, tokens: 1 }]);
    const plain = { ...b, id: 'c', info: {} };
    expect(toolStepFigures([a, b, plain])).toEqual({
      'tool/episodes': 2,
      'tool/calls': 2,
      'tool/valid_calls': 1,
      'tool/invalid_calls': 1,
      'tool/malformed': 0,
      'tool/unknown_tool': 0,
      'tool/invalid_arguments': 1,
      'tool/errors': 0,
      'tool/timeouts': 0,
      'tool/calls_per_episode': 1,
      'tool/invalid_call_ratio': 0.5,
      'tool/episodes_without_calls': 1,
      'tool/turns_per_episode': 1.5,
    });
    expect(toolStepFigures([plain])).toBeNull();
    expect(toolStepFigures([])).toBeNull();
  });

  it('every figure has a label and unit for charts', () => {
    for (const key of TOOL_FIGURE_KEYS) expect([key, metricInfo(key).label === key]).toEqual([key, false]);
  });
});
