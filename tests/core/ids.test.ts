import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentHash, stableStringify, taskContentId } from '../../src/core/ids.ts';

/** The definition the ids of every landed table were made with (sha256 of the sorted-key JSON). */
const reference = (task: { prompt?: string; messages?: unknown; answer?: string }) =>
  `t_${createHash('sha256')
    .update(stableStringify({ p: task.prompt ?? null, m: task.messages ?? null, a: task.answer ?? null }))
    .digest('hex')
    .slice(0, 16)}`;

describe('taskContentId', () => {
  it('is the sha256 of the sorted-key JSON of { p, m, a }, with or without messages', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }));
    const messages = fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: text }), {
      maxLength: 3,
    });
    fc.assert(
      fc.property(fc.record({ prompt: text, answer: text, messages }, { requiredKeys: [] }), (task) => {
        expect(taskContentId(task)).toBe(reference(task));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the ids of existing tables (fixed values)', () => {
    expect(taskContentId({ prompt: 'What is 2+2?', answer: '4' })).toBe('t_f45a86b70f13da3d');
    expect(contentHash('abc')).toBe('ba7816bf8f01cfea');
    expect(taskContentId({})).toBe('t_2261ba0615a612fd');
  });
});
