import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { taskContentId } from '../../src/core/ids.ts';
import { TaskSchema } from '../../src/core/task.ts';
import { compileMapping, mapBatch, mapRecord, parseFieldMapping } from '../../src/io/mapping.ts';
import type { RawRecord } from '../../src/io/raw-record.ts';
import { readDataset } from '../../src/io/reader.ts';
import { compileTemplate } from '../../src/io/template.ts';

const rec = (fields: Record<string, unknown>, row = 3): RawRecord => ({
  fields,
  source: { file: '/d/x.jsonl', row },
});
const errorOf = (r: ReturnType<typeof mapRecord>) =>
  'error' in r ? r.error : `mapped: ${JSON.stringify(r.task)}`;
const taskOf = (r: ReturnType<typeof mapRecord>) => {
  if ('error' in r) throw new Error(r.error);
  return r.task;
};

describe('field mapping', () => {
  it('maps columns to a Task with a content-hash id and the source', () => {
    const m = compileMapping({ taskset: 'gsm8k', prompt: 'question', answer: 'answer' });
    const task = taskOf(m.map(rec({ question: 'What is 2+2?', answer: '4', other: 1 })));
    expect(task).toEqual({
      id: taskContentId({ prompt: 'What is 2+2?', answer: '4' }),
      taskset: 'gsm8k',
      prompt: 'What is 2+2?',
      answer: '4',
      features: {},
      meta: {},
      source: { file: '/d/x.jsonl', row: 3 },
    });
    expect(task.id).toMatch(/^t_[0-9a-f]{16}$/);
  });

  it('takes ids from a column (text or integer) and rejects unusable ids', () => {
    const m = compileMapping({ taskset: 't', id: 'id', prompt: 'q' });
    expect(taskOf(m.map(rec({ id: 'abc', q: 'x' }))).id).toBe('abc');
    expect(taskOf(m.map(rec({ id: 17, q: 'x' }))).id).toBe('17');
    expect(errorOf(m.map(rec({ id: 1.5, q: 'x' })))).toBe(
      "id: column 'id' holds 1.5, expected non-empty text or an integer",
    );
    expect(errorOf(m.map(rec({ id: '', q: 'x' })))).toBe(
      'id: column \'id\' holds "", expected non-empty text or an integer',
    );
    expect(errorOf(m.map(rec({ q: 'x', Id: 3 })))).toBe("id: missing column 'id' (the row has: 'q', 'Id')");
  });

  it('names the missing column and lists the columns the row has', () => {
    const m = compileMapping({ taskset: 't', prompt: 'question', answer: 'answer' });
    expect(errorOf(m.map(rec({ problem: 'p', solution: 's' })))).toBe(
      "prompt: missing column 'question' (the row has: 'problem', 'solution')",
    );
    expect(errorOf(m.map(rec({ question: 'q' })))).toBe(
      "answer: missing column 'answer' (the row has: 'question')",
    );
    expect(errorOf(m.map(rec({ question: 'q', answer: null })))).toBe(
      "answer: column 'answer' holds null, expected text",
    );
    expect(errorOf(m.map(rec({})))).toBe("prompt: missing column 'question' (the row has no columns)");
  });

  it('handles wrong value types: numbers become text, arrays and objects are rejected', () => {
    const m = compileMapping({ taskset: 't', prompt: 'q', answer: 'a' });
    expect(taskOf(m.map(rec({ q: 'x', a: 42 }))).answer).toBe('42');
    expect(taskOf(m.map(rec({ q: 'x', a: false }))).answer).toBe('false');
    expect(errorOf(m.map(rec({ q: ['x'], a: '1' })))).toBe(
      "prompt: column 'q' holds an array, expected text",
    );
    expect(errorOf(m.map(rec({ q: { t: 1 }, a: '1' })))).toBe(
      "prompt: column 'q' holds an object, expected text",
    );
  });

  it('renders templates: nested fields, arrays one item per line, literal braces', () => {
    const m = compileMapping({
      taskset: 'mmlu',
      prompt: { template: 'Q: {question}\n{choices}\nLevel {meta.level} {{not a field}}' },
      answer: { template: '{answer}' },
    });
    const task = taskOf(
      m.map(rec({ question: 'Pick one', choices: ['A. 1', 'B. 2', 3], meta: { level: 2 }, answer: 'B' })),
    );
    expect(task.prompt).toBe('Q: Pick one\nA. 1\nB. 2\n3\nLevel 2 {not a field}');
    expect(task.answer).toBe('B');
    expect(errorOf(m.map(rec({ question: 'q', meta: { level: 1 }, answer: 'B' })))).toBe(
      "prompt: template field 'choices' is missing (the row has: 'question', 'meta', 'answer')",
    );
    expect(errorOf(m.map(rec({ question: 'q', choices: null, meta: {}, answer: 'B' })))).toBe(
      "prompt: template field 'choices' is null",
    );
    expect(compileTemplate('{ a.b }-{c}', 'x').fields).toEqual(['a.b', 'c']);
  });

  it('parses numeric features and rejects non-numeric ones naming the column', () => {
    const m = compileMapping({
      taskset: 't',
      prompt: 'q',
      features: { difficulty: 'level', pass_rate_weak: 'stats.weak' },
    });
    expect(taskOf(m.map(rec({ q: 'x', level: ' 3 ', stats: { weak: 0.25 } }))).features).toEqual({
      difficulty: 3,
      pass_rate_weak: 0.25,
    });
    expect(taskOf(m.map(rec({ q: 'x', level: 2n, 'stats.weak': '1e-2' }))).features).toEqual({
      difficulty: 2,
      pass_rate_weak: 0.01,
    });
    expect(errorOf(m.map(rec({ q: 'x', level: 'hard', stats: { weak: 0.1 } })))).toBe(
      'features.difficulty: column \'level\' holds "hard", expected a number',
    );
    expect(errorOf(m.map(rec({ q: 'x', level: 1, stats: { weak: null } })))).toBe(
      "features.pass_rate_weak: column 'stats.weak' holds null, expected a number",
    );
    expect(errorOf(m.map(rec({ q: 'x', level: 1, stats: {} })))).toBe(
      "features.pass_rate_weak: missing field 'stats.weak' (the row has: 'q', 'level', 'stats')",
    );
    expect(errorOf(m.map(rec({ q: 'x', level: true, stats: { weak: 1 } })))).toBe(
      "features.difficulty: column 'level' holds true, expected a number",
    );
  });

  it('fills meta from named columns, a list of columns, or every unmapped column', () => {
    const fields = {
      q: 'x',
      subject: 'math',
      stats: { weak: 0.5, n: 3 },
      big: 2n ** 70n,
      vec: Float32Array.from([0.5, 1]),
      nan: Number.NaN,
    };
    const named = compileMapping({ taskset: 't', prompt: 'q', meta: { topic: 'subject', n: 'stats.n' } });
    expect(taskOf(named.map(rec(fields))).meta).toEqual({ topic: 'math', n: 3 });
    const list = compileMapping({ taskset: 't', prompt: 'q', meta: ['subject', 'vec'] });
    expect(taskOf(list.map(rec(fields))).meta).toEqual({ subject: 'math', vec: [0.5, 1] });
    const all = compileMapping({ taskset: 't', prompt: 'q', features: { w: 'stats.weak' }, meta: '*' });
    expect(taskOf(all.map(rec(fields))).meta).toEqual({
      subject: 'math',
      big: '1180591620717411303424',
      vec: [0.5, 1],
      nan: null,
    });
    expect(errorOf(named.map(rec({ q: 'x', stats: {} })))).toBe(
      "meta.topic: missing column 'subject' (the row has: 'q', 'stats')",
    );
  });

  it('reads chat messages from a column and rejects malformed turns', () => {
    const m = compileMapping({ taskset: 'chat', messages: 'conversation', answer: 'ref' });
    const turns = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ];
    const task = taskOf(m.map(rec({ conversation: turns, ref: 'Hello' })));
    expect(task.messages).toEqual(turns);
    expect(task.prompt).toBeUndefined();
    expect(task.id).toBe(taskContentId({ messages: turns, answer: 'Hello' }));
    expect(errorOf(m.map(rec({ conversation: 'Hi', ref: 'x' })))).toBe(
      'messages: column \'conversation\' holds "Hi", expected a list of {role, content}',
    );
    expect(errorOf(m.map(rec({ conversation: [], ref: 'x' })))).toBe(
      "messages: column 'conversation' holds an empty list",
    );
    expect(errorOf(m.map(rec({ conversation: [{ role: 'bot', content: 'x' }], ref: 'x' })))).toBe(
      'messages: column \'conversation\' item 0: role "bot" is not one of system, user, assistant, tool',
    );
    expect(errorOf(m.map(rec({ conversation: [{ role: 'user', content: 5 }], ref: 'x' })))).toBe(
      "messages: column 'conversation' item 0: content holds 5, expected text",
    );
  });

  it('builds messages from templated turns', () => {
    const m = compileMapping({
      taskset: 't',
      messages: [
        { role: 'system', content: 'You solve {kind} problems.' },
        { role: 'user', content: '{question}' },
      ],
    });
    expect(taskOf(m.map(rec({ kind: 'math', question: '1+1?' }))).messages).toEqual([
      { role: 'system', content: 'You solve math problems.' },
      { role: 'user', content: '1+1?' },
    ]);
    expect(errorOf(m.map(rec({ kind: 'math' })))).toBe(
      "messages[1]: template field 'question' is missing (the row has: 'kind')",
    );
  });

  it('rejects bad mapping configs with ConfigErrors at the config path', () => {
    const cases: Array<[unknown, string]> = [
      [{ taskset: 't', answer: 'a' }, 'mapping.prompt: a mapping needs prompt or messages'],
      [{ prompt: 'q' }, 'mapping.taskset: Invalid input: expected string, received undefined'],
      [
        { taskset: 't', prompt: { template: 'x {a' } },
        'mapping.prompt.template: bad placeholder at character 3',
      ],
      [
        { taskset: 't', prompt: { template: 'x } y' } },
        "mapping.prompt.template: unmatched '}' at character 3",
      ],
      [{ taskset: 't', prompt: 'q', feature: {} }, 'mapping: Unrecognized key: "feature"'],
      [{ taskset: 't', prompt: 'q', meta: 'all' }, 'mapping.meta: Invalid input'],
    ];
    for (const [config, message] of cases) {
      const err = (() => {
        try {
          compileMapping(config as never);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message.startsWith(message)).toBe(true);
    }
    expect(parseFieldMapping({ taskset: 't', prompt: 'q' })).toEqual({
      taskset: 't',
      prompt: 'q',
      features: {},
      meta: {},
    });
  });

  it('maps batches, passing reader rejections through and adding its own with payloads', () => {
    const mapping = { taskset: 't', prompt: 'q' };
    const readerReject = {
      step: 'read:jsonl',
      file: '/d/x.jsonl',
      row: 2,
      reason: 'invalid UTF-8',
      payload: '?',
    };
    const out = mapBatch(
      { records: [rec({ q: 'a' }, 1), rec({ x: 1 }, 3), rec({ q: 'b' }, 4)], rejected: [readerReject] },
      mapping,
    );
    expect(out.tasks.map((t) => [t.prompt, t.source?.row])).toEqual([
      ['a', 1],
      ['b', 4],
    ]);
    expect(out.rejected).toEqual([
      readerReject,
      {
        step: 'map',
        file: '/d/x.jsonl',
        row: 3,
        reason: "prompt: missing column 'q' (the row has: 'x')",
        payload: '{"x":1}',
      },
    ]);
    // A plain config works with mapRecord too.
    expect(taskOf(mapRecord(rec({ q: 'z' }), mapping)).prompt).toBe('z');
  });

  it('never throws on arbitrary rows: every row maps to a task TaskSchema accepts, or gets a reason', () => {
    const config = {
      taskset: 't',
      id: 'id',
      prompt: { template: '{q} {c}' },
      answer: 'a',
      features: { f: 'n' },
      meta: '*' as const,
    };
    const m = compileMapping(config);
    const checked = compileMapping(config, { validate: true });
    fc.assert(
      fc.property(
        fc.record(
          { id: fc.anything(), q: fc.anything(), c: fc.anything(), a: fc.anything(), n: fc.anything() },
          { requiredKeys: [] },
        ),
        (fields) => {
          const r = m.map(rec(fields as Record<string, unknown>));
          expect(checked.map(rec(fields as Record<string, unknown>))).toEqual(r);
          if ('error' in r) expect(r.error.length).toBeGreaterThan(0);
          else expect(TaskSchema.parse(r.task)).toEqual(r.task);
        },
      ),
      { numRuns: 300, seed: 3 },
    );
  });

  it('builds tasks TaskSchema accepts from arbitrary chat columns and feature values', () => {
    const m = compileMapping({ taskset: 'c', messages: 'm', features: { x: 'x' }, meta: ['k'] });
    const turn = fc.record({
      role: fc.oneof(fc.constantFrom('system', 'user', 'assistant', 'tool'), fc.string()),
      content: fc.oneof(fc.string(), fc.integer()),
    });
    fc.assert(
      fc.property(
        fc.array(turn, { maxLength: 3 }),
        fc.oneof(fc.double(), fc.string(), fc.integer()),
        fc.jsonValue(),
        (turns, x, k) => {
          const r = m.map(rec({ m: turns, x, k }));
          if ('task' in r) expect(TaskSchema.parse(r.task)).toEqual(r.task);
        },
      ),
      { numRuns: 300, seed: 9 },
    );
    expect(
      errorOf(
        m.map({
          fields: { m: [{ role: 'user', content: 'x' }], x: 1, k: 1 },
          source: { file: 'f', row: -1 },
        }),
      ),
    ).toBe('source row -1 is not a row number');
  });

  it.skipIf(!existsSync('/work/shared/datasets/gsm8k/test.jsonl'))('maps every GSM8K test row', async () => {
    const m = compileMapping({ taskset: 'gsm8k', prompt: 'question', answer: 'answer' });
    const ids = new Set<string>();
    let rejected = 0;
    for await (const batch of readDataset('/work/shared/datasets/gsm8k/test.jsonl')) {
      const out = mapBatch(batch, m);
      rejected += out.rejected.length;
      for (const t of out.tasks) ids.add(t.id);
    }
    expect(rejected).toBe(0);
    expect(ids.size).toBe(1319);
  });
});
