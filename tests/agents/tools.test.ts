import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { calculatorTool, evaluateTool, lookupTool } from '../../src/agents/builtin-tools.ts';
import { parseTextToolCalls } from '../../src/agents/text-tool-calls.ts';
import { defineTool, type Tool, toolSpecOf } from '../../src/agents/tool.ts';
import { runToolCall } from '../../src/agents/tool-call-runner.ts';
import type { Task } from '../../src/core/task.ts';
import { readToolCalls } from '../../src/models/openai/parse-response.ts';

const task: Task = {
  id: 't',
  taskset: 's',
  prompt: 'p',
  features: {},
  meta: { kv: { capital_fr: 'Paris' } },
} as Task;

const slow = defineTool({
  name: 'slow',
  description: 'never answers in time',
  args: z.strictObject({}),
  run: (_a, { signal }) =>
    new Promise((resolve) => {
      const t = setTimeout(() => resolve('late'), 5000);
      signal.addEventListener('abort', () => clearTimeout(t));
    }),
});
const tools: Tool[] = [
  calculatorTool as Tool,
  evaluateTool as Tool,
  lookupTool({ pi: 3.14 }) as Tool,
  slow as Tool,
];
const call = (name: string, args: string, problem?: string) =>
  runToolCall({ id: 'c', name, arguments: args, ...(problem ? { problem } : {}) }, tools, {
    task,
    timeoutMs: 30,
  });

describe('tool calls', () => {
  it('run valid calls and answer every kind of failure with its reason', async () => {
    expect(await call('calculator', '{"a":999,"op":"+","b":1}')).toEqual({
      callId: 'c',
      name: 'calculator',
      ok: true,
      content: '1000',
    });
    expect((await call('evaluate', '{"expression":"6/(1-3/4)"}')).content).toBe('24');
    expect((await call('evaluate', '{"expression":"1/3+1/3"}')).content).toBe('2/3');
    expect((await call('lookup', '{"key":"capital_fr"}')).content).toBe('Paris');
    expect((await call('lookup', '{"key":"pi"}')).content).toBe('3.14');

    const failures = await Promise.all([
      call('calculator', '{"a":1,'),
      call('', '', 'tool call has no function name'),
      call('search', '{}'),
      call('calculator', '{"a":1,"op":"^","b":2}'),
      call('calculator', '{"a":1,"op":"/","b":0}'),
      call('evaluate', '{"expression":"2+"}'),
      call('lookup', '{"key":"nope"}'),
      call('slow', '{}'),
    ]);
    expect(failures.map((f) => [f.ok, f.failure])).toEqual([
      [false, 'malformed'],
      [false, 'malformed'],
      [false, 'unknown_tool'],
      [false, 'invalid_arguments'],
      [false, 'tool_error'],
      [false, 'tool_error'],
      [false, 'tool_error'],
      [false, 'timeout'],
    ]);
    expect(failures[2]!.content).toBe(
      "error (unknown_tool): no tool named 'search'; tools: calculator, evaluate, lookup, slow",
    );
    expect(failures[4]!.content).toBe('error (tool_error): division by zero');
    expect(failures[6]!.content).toBe("error (tool_error): no entry for key 'nope'");
    expect(failures[7]!.content).toBe('error (timeout): no result within 30 ms');
  });

  it('describe tools in the OpenAI `tools` format', () => {
    expect(toolSpecOf(calculatorTool as Tool)).toEqual({
      type: 'function',
      function: {
        name: 'calculator',
        description: 'Compute a op b for two numbers (op is one of + - * /).',
        parameters: {
          type: 'object',
          properties: {
            a: { type: 'number', description: 'left operand' },
            op: { type: 'string', enum: ['+', '-', '*', '/'], description: 'operation' },
            b: { type: 'number', description: 'right operand' },
          },
          required: ['a', 'op', 'b'],
          additionalProperties: false,
        },
      },
    });
  });

  it('read tool calls from a chat message and from text blocks, keeping unreadable ones with a problem', () => {
    expect(
      readToolCalls([
        { id: 'a', type: 'function', function: { name: 'calculator', arguments: '{"a":1}' } },
        { type: 'function', function: { name: 'lookup', arguments: { key: 'x' } } },
        { id: 'c', function: { arguments: '{}' } },
        'junk',
      ]),
    ).toEqual([
      { id: 'a', name: 'calculator', arguments: '{"a":1}' },
      { id: 'call_1', name: 'lookup', arguments: '{"key":"x"}' },
      { id: 'c', name: '', arguments: '', problem: 'tool call has no function name' },
      { id: 'call_3', name: '', arguments: '', problem: 'tool call has no function name' },
    ]);
    expect(
      parseTextToolCalls(
        'x <tool_call>{"name":"calculator","arguments":{"a":1,"op":"+","b":2}}</tool_call> <tool_call>oops</tool_call>',
        2,
      ),
    ).toEqual([
      { id: 'call_2_0', name: 'calculator', arguments: '{"a":1,"op":"+","b":2}' },
      { id: 'call_2_1', name: '', arguments: 'oops', problem: 'tool call block is not JSON' },
    ]);
  });
});
