import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { compileMapping, parseFieldMapping } from '../../src/io/mapping.ts';
import { checkMappingColumns, missingColumns } from '../../src/io/mapping-columns.ts';
import type { RawRecord } from '../../src/io/raw-record.ts';
import { compileTemplate } from '../../src/io/template.ts';
import { reasonClass } from '../../src/operators/step-metrics.ts';

const rec = (fields: Record<string, unknown>, row = 2): RawRecord => ({
  fields,
  source: { file: '/d/qa.csv', row },
});
const outcome = (m: ReturnType<typeof compileMapping>, fields: Record<string, unknown>) => {
  const r = m.map(rec(fields));
  return 'error' in r ? { error: r.error } : { prompt: r.task.prompt, answer: r.task.answer };
};
const checkError = (fn: () => void): ConfigError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
};

const batch = [
  rec({ id: 1, question: 'What is 2+2?', answer: 4, level: 1 }),
  rec({ id: 2, question: 'What is 3+3?', answer: 6, level: 2 }),
];

describe('mapping columns checked against a first batch', () => {
  it('a misspelt column names the mapping key, the column, the nearest columns and the columns there', () => {
    const m = compileMapping({ taskset: 't', prompt: 'questoin', answer: 'answer' });
    expect(missingColumns(m, batch)).toEqual([{ key: 'prompt', column: 'questoin' }]);
    const err = checkError(() =>
      checkMappingColumns(m, batch, { file: '/d/qa.csv', configFile: '/p/qa.yaml' }),
    );
    expect(err.path).toBe('mapping.prompt');
    expect(err.message).toBe(
      "/p/qa.yaml: mapping.prompt: column 'questoin' is in no row of the first batch of qa.csv (did you mean 'question'?; the file has: id, question, answer, level)",
    );
  });

  it('a misspelt template field is named with its template key; several misses are all listed', () => {
    const m = compileMapping({
      taskset: 't',
      prompt: { template: 'Q: {questoin}\nLevel {level}' },
      answer: 'answr',
    });
    expect(missingColumns(m, batch)).toEqual([
      { key: 'prompt.template', column: 'questoin', template: 'Q: {questoin}\nLevel {level}' },
      { key: 'answer', column: 'answr' },
    ]);
    const err = checkError(() => checkMappingColumns(m, batch, { file: '/d/qa.csv' }));
    expect(err.message).toBe(
      "mapping.prompt.template: template field 'questoin' is in no row of the first batch of qa.csv; also missing: answer 'answr' (did you mean 'question'?; the file has: id, question, answer, level)",
    );
  });

  it('with no near name, the hint says how to mark a column optional', () => {
    const m = compileMapping({ taskset: 't', prompt: 'question', meta: { src: 'provenance' } });
    const err = checkError(() => checkMappingColumns(m, batch, { file: '/d/qa.csv', path: 'tasks.mapping' }));
    expect(err.message).toBe(
      "tasks.mapping.meta.src: column 'provenance' is in no row of the first batch of qa.csv (the file has: id, question, answer, level; mark one only some rows have optional: 'provenance?')",
    );
  });

  it('a column one row of the batch has passes; optional columns and fields are not required', () => {
    const sparse = [rec({ question: 'a' }), rec({ question: 'b', hint: 'h' })];
    const m = compileMapping({
      taskset: 't',
      prompt: { template: '{question}{hint?}' },
      answer: 'solution?',
      features: { level: 'level?' },
      meta: ['hint', 'source?'],
    });
    expect(m.required).toEqual([
      { key: 'prompt.template', column: 'question', template: '{question}{hint?}' },
      { key: 'meta[0]', column: 'hint' },
    ]);
    expect(missingColumns(m, sparse)).toEqual([]);
    expect(() => checkMappingColumns(m, sparse, { file: '/d/x.jsonl' })).not.toThrow();
    // An empty batch proves nothing.
    expect(() =>
      checkMappingColumns(compileMapping({ taskset: 't', prompt: 'nope' }), [], { file: 'x' }),
    ).not.toThrow();
  });

  it('a misspelt nested field suggests the keys under its parent', () => {
    const nested = [rec({ q: { text: 'hi', lang: 'en' } })];
    const m = compileMapping({ taskset: 't', prompt: 'q.txet' });
    const err = checkError(() => checkMappingColumns(m, nested, { file: '/d/n.jsonl' }));
    expect(err.message).toBe(
      "mapping.prompt: column 'q.txet' is in no row of the first batch of n.jsonl (did you mean 'q.text'?; the file has: q)",
    );
  });
});

describe('optional columns', () => {
  it('rows without an optional answer, feature, meta key or template field keep going without it', () => {
    const m = compileMapping({
      taskset: 't',
      prompt: { template: '{question}{hint?}' },
      answer: 'solution?',
      features: { level: 'level?' },
      meta: ['source?'],
    });
    const bare = m.map(rec({ question: 'Q', hint: null }));
    expect('task' in bare && bare.task).toMatchObject({ prompt: 'Q', features: {}, meta: {} });
    expect('task' in bare && 'answer' in bare.task).toBe(false);
    const full = m.map(rec({ question: 'Q', hint: ' (hint)', solution: 7, level: 3, source: 'web' }));
    expect('task' in full && full.task).toMatchObject({
      prompt: 'Q (hint)',
      answer: '7',
      features: { level: 3 },
      meta: { source: 'web' },
    });
  });

  it('the object form names a column exactly; a prompt cannot be optional', () => {
    const m = compileMapping({ taskset: 't', prompt: 'q', answer: { column: 'ok?' } });
    expect(m.required).toEqual([
      { key: 'prompt', column: 'q' },
      { key: 'answer', column: 'ok?' },
    ]);
    expect(outcome(m, { q: 'x', 'ok?': true })).toEqual({ prompt: 'x', answer: 'true' });
    expect(() => parseFieldMapping({ taskset: 't', prompt: 'q?' })).toThrow(
      'mapping.prompt: the prompt cannot be optional (a task needs one); name the column without a trailing ?',
    );
  });

  it('templates mark optional placeholders with ? and report them apart', () => {
    const t = compileTemplate('{a} {b?} {c.d ?}', 'x');
    expect(t.fields).toEqual(['a', 'b', 'c.d']);
    expect(t.requiredFields).toEqual(['a']);
    expect(t.render({ a: 1, c: { d: 'z' } })).toBe('1  z');
  });
});

describe('prompts: non-empty text unless the mapping says otherwise', () => {
  it('rejects empty and whitespace-only prompts naming the column', () => {
    const m = compileMapping({ taskset: 't', prompt: 'question', answer: 'answer' });
    expect(outcome(m, { question: '', answer: 9 })).toEqual({ error: "empty prompt (column 'question')" });
    expect(outcome(m, { question: ' \t\n', answer: 9 })).toEqual({
      error: "empty prompt (column 'question')",
    });
    const t = compileMapping({ taskset: 't', prompt: { template: '{question}' } });
    expect(outcome(t, { question: '  ' })).toEqual({ error: 'empty prompt (template "{question}")' });
  });

  it('allowEmpty keeps them', () => {
    const m = compileMapping({ taskset: 't', prompt: { column: 'question', allowEmpty: true } });
    expect(outcome(m, { question: '' })).toEqual({ prompt: '', answer: undefined });
  });

  it('rejects numbers and booleans as prompts, saying what the column holds; coerce: string accepts them', () => {
    const m = compileMapping({ taskset: 't', prompt: 'question' });
    expect(outcome(m, { question: 12345 })).toEqual({
      error: "prompt: column 'question' holds a number (12345), expected text (coerce: string accepts it)",
    });
    expect(outcome(m, { question: true })).toEqual({
      error: "prompt: column 'question' holds a boolean (true), expected text (coerce: string accepts it)",
    });
    expect(outcome(m, { question: { a: 1 } })).toEqual({
      error: "prompt: column 'question' holds an object, expected text",
    });
    const c = compileMapping({ taskset: 't', prompt: { column: 'question', coerce: 'string' } });
    expect(outcome(c, { question: 12345 })).toEqual({ prompt: '12345', answer: undefined });
    expect(outcome(c, { question: 12n })).toEqual({ prompt: '12', answer: undefined });
    expect(outcome(c, { question: null })).toEqual({
      error: "prompt: column 'question' holds null, expected text",
    });
  });

  it('answers that are numbers stay accepted as their text (reference answers often are)', () => {
    const m = compileMapping({ taskset: 't', prompt: 'q', answer: 'a' });
    expect(outcome(m, { q: 'x', a: 18 })).toEqual({ prompt: 'x', answer: '18' });
    expect(outcome(m, { q: 'x', a: [1] })).toEqual({
      error: "answer: column 'a' holds an array, expected text",
    });
  });

  it('the schema refuses unknown keys in the object forms', () => {
    expect(() => parseFieldMapping({ taskset: 't', prompt: { column: 'q', coerce: 'number' } })).toThrow(
      ConfigError,
    );
    expect(() =>
      parseFieldMapping({ taskset: 't', prompt: 'q', answer: { column: 'a', coerce: 'string' } }),
    ).toThrow(ConfigError);
  });
});

describe('reason classes keep the names a user fixes', () => {
  it('blanks values, ids and numbers, keeps column names', () => {
    expect(reasonClass("prompt: missing column 'questoin' (the row has: 'question', 'answer')")).toBe(
      "prompt: missing column 'questoin' (the row has: …)",
    );
    expect(
      reasonClass("prompt: column 'q2' holds a number (12345), expected text (coerce: string accepts it)"),
    ).toBe("prompt: column 'q2' holds a number (#), expected text (coerce: string accepts it)");
    expect(reasonClass("final answer '12' is not a number")).toBe("final answer '…' is not a number");
    expect(reasonClass('duplicate of t_3fa2bc1234 (similarity 0.91)')).toBe(
      'duplicate of <id> (similarity #)',
    );
    expect(reasonClass('answer: column \'a\' holds "x y", expected a number')).toBe(
      'answer: column \'a\' holds "…", expected a number',
    );
  });
});
