import type { Trajectory } from '../../src/agents/trajectory.ts';
import type { Experience } from '../../src/core/experience.ts';

/**
 * An agent-episode experience for operator and export tests: `turns` gives each model turn's
 * reward, model-token count and tool calls (invalid ones counted); between turns one
 * observation token (mask 0). Prompt: 2 tokens.
 */
export function episodeRow(
  id: string,
  groupId: string,
  turns: { reward: number; tokens: number; calls?: number; invalid?: number }[],
): Experience {
  const tokens = [1, 2];
  const mask: number[] = [];
  const spans: [number, number][] = [];
  const messages: Trajectory['messages'] = [{ role: 'user', content: 'q' }];
  const tturns: Trajectory['turns'] = [];
  let calls = 0;
  let invalid = 0;
  turns.forEach((t, i) => {
    if (i > 0) {
      tokens.push(90);
      mask.push(0);
    }
    const start = mask.length;
    for (let k = 0; k < t.tokens; k++) {
      tokens.push(100 + i);
      mask.push(1);
    }
    spans.push([start, mask.length]);
    const from = messages.length;
    const n = t.calls ?? 0;
    messages.push({
      role: 'assistant',
      content: n === 0 ? `answer ${i}` : '',
      ...(n > 0
        ? {
            tool_calls: Array.from({ length: n }, (_, k) => ({
              id: `c${i}${k}`,
              type: 'function' as const,
              function: { name: 'calculator', arguments: '{}' },
            })),
          }
        : {}),
    });
    for (let k = 0; k < n; k++) messages.push({ role: 'tool', content: `r${k}`, tool_call_id: `c${i}${k}` });
    calls += n;
    invalid += t.invalid ?? 0;
    tturns.push({
      index: i,
      reward: t.reward,
      done: i === turns.length - 1,
      tokenSpan: [start, mask.length],
      messageSpan: [from, messages.length],
      toolCalls: n,
      invalidCalls: t.invalid ?? 0,
      truncated: false,
      info: {},
    });
  });
  const trajectory: Trajectory = {
    environment: 'tools',
    messages,
    turns: tturns,
    counts: {
      toolCalls: calls,
      validCalls: calls - invalid,
      invalidCalls: invalid,
      malformed: 0,
      unknownTool: 0,
      invalidArguments: invalid,
      toolError: 0,
      timeout: 0,
    },
    stopReason: 'done',
    finalAnswer: `answer ${turns.length - 1}`,
  };
  return {
    id,
    taskId: groupId.split(':')[1] ?? groupId,
    taskset: 's',
    groupId,
    runIndex: 0,
    stepIndex: 0,
    modelVersion: 0,
    exploreStep: 1,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    response: trajectory.finalAnswer,
    tokens,
    logprobs: [],
    actionMask: mask,
    promptLength: 2,
    reward: turns.reduce((s, t) => s + t.reward, 0),
    advantage: 0,
    truncated: false,
    info: { trajectory: trajectory as unknown as Experience['info'][string] },
    useCount: 0,
    priority: 0,
    createdAt: 0,
    expert: false,
  };
}
