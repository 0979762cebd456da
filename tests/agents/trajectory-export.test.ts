import { describe, expect, it } from 'vitest';
import { ExportOptionsSchema } from '../../src/export/export-format.ts';
import { trajectoryMessagesFormat, trajectoryStepsFormat } from '../../src/export/trajectory-formats.ts';
import { episodeRow } from './helpers.ts';

const e1 = episodeRow('e1', 's1:A', [
  { reward: 0, tokens: 2, calls: 1 },
  { reward: -0.25, tokens: 2, calls: 1, invalid: 1 },
  { reward: 1, tokens: 2 },
]);
const plain = { ...episodeRow('p', 's1:B', [{ reward: 1, tokens: 1 }]), info: {} };
const source = { kind: 'experiences' as const, table: 'exps', experiences: [e1, plain] };
const options = ExportOptionsSchema.parse({});

describe('trajectory exports', () => {
  it('trajectory-messages: one row per episode with the messages (tool calls included) and step rewards', () => {
    const r = trajectoryMessagesFormat.build(source, options);
    expect(r.dropped).toEqual([
      {
        format: 'trajectory-messages',
        id: 'p',
        taskId: 'B',
        reason: 'no_trajectory',
        detail: 'experience p has no info.trajectory (not an agent episode)',
      },
    ]);
    expect(r.table.numRows).toBe(1);
    const row = r.rows[0]!;
    expect(row.step_rewards).toEqual([0, -0.25, 1]);
    expect([row.tool_calls, row.invalid_calls, row.stop_reason, row.reward]).toEqual([2, 1, 'done', 0.75]);
    expect((row.messages as { role: string }[]).map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    // Read back from Arrow: the assistant turn keeps its tool call, the tool turn its call id.
    const turns = r.table.getChild('messages')!.get(0)!;
    const assistant = turns.get(1)!.toJSON() as { role: string; tool_calls: { toArray(): unknown[] } };
    expect(assistant.role).toBe('assistant');
    expect(
      assistant.tool_calls.toArray().map((c) => {
        const j = (c as { toJSON(): Record<string, unknown> }).toJSON();
        return [j.id, (j.function as { toJSON(): unknown }).toJSON()];
      }),
    ).toEqual([['c00', { name: 'calculator', arguments: '{}' }]]);
    expect((turns.get(2)!.toJSON() as { tool_call_id: string }).tool_call_id).toBe('c00');
  });

  it('trajectory-steps: one row per model turn, its prompt the conversation before it', () => {
    const r = trajectoryStepsFormat.build(source, options);
    expect(r.table.numRows).toBe(3);
    expect(r.rows.map((x) => [x.id, x.step, x.step_reward, x.return, x.done])).toEqual([
      ['e1/0', 0, 0, 0.75, false],
      ['e1/1', 1, -0.25, 0.75, false],
      ['e1/2', 2, 1, 1, true],
    ]);
    expect(r.rows.map((x) => (x.prompt as unknown[]).length)).toEqual([1, 3, 5]);
    expect(r.rows.map((x) => (x.completion as { role: string; content: string }[])[0]!.content)).toEqual([
      '',
      '',
      'answer 2',
    ]);
    expect(r.dropped.map((d) => d.id)).toEqual(['p']);
  });
});
