import type { GeneratedToolCall } from '../models/rollout-model.ts';
import type { Tool } from './tool.ts';
import { toolSpecOf } from './tool.ts';

const BLOCK = /<tool_call>([\s\S]*?)<\/tool_call>/g;

/**
 * Tool calls written in the text, for models without native tool calling (the tiny policy, a
 * completions endpoint): each `<tool_call>{"name": …, "arguments": {…}}</tool_call>` block is one
 * call. A block that is not such JSON is kept as a malformed call, so it is answered and counted.
 */
export function parseTextToolCalls(text: string, turn: number): GeneratedToolCall[] {
  const out: GeneratedToolCall[] = [];
  for (const m of text.matchAll(BLOCK)) {
    const id = `call_${turn}_${out.length}`;
    let value: unknown;
    try {
      value = JSON.parse(m[1]!.trim());
    } catch {
      out.push({ id, name: '', arguments: m[1]!.trim(), problem: 'tool call block is not JSON' });
      continue;
    }
    const v = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
    if (typeof v.name !== 'string' || v.name === '') {
      out.push({ id, name: '', arguments: '', problem: 'tool call has no function name' });
      continue;
    }
    const args = v.arguments ?? {};
    out.push({ id, name: v.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
  }
  return out;
}

/** The tools described in a system message, for the text format (native tool calling sends `tools`). */
export function describeToolsForText(tools: readonly Tool[]): string {
  const lines = tools.map((t) => JSON.stringify(toolSpecOf(t).function));
  return [
    'You can call these tools by writing <tool_call>{"name": "...", "arguments": {...}}</tool_call>:',
    ...lines,
  ].join('\n');
}
