import { describe, expect, it } from 'vitest';
import { mapFieldsOp } from '../../../src/operators/task/map-fields.ts';
import { parseTemplate } from '../../../src/operators/task/template.ts';
import { reasons, run, task } from './helpers.ts';

const mcq = task('q1', '', {
  meta: { question: 'Which is prime?', choices: ['4', '6', '7'], label: 'C', level: '3', pass_rate: 0.25 },
});

describe('map_fields', () => {
  it('fills the prompt and answer from templates over meta', async () => {
    const r = await run(mapFieldsOp, { prompt: '{meta.question}\n{meta.choices}', answer: '{meta.label}' }, [
      mcq,
    ]);
    expect(r.rows).toEqual([{ ...mcq, prompt: 'Which is prime?\n4\n6\n7', answer: 'C' }]);
  });

  it('renders lists lettered or numbered, and reads bare names as meta keys', async () => {
    const lettered = await run(mapFieldsOp, { prompt: '{question}\n{choices}', listFormat: 'lettered' }, [
      mcq,
    ]);
    expect(lettered.rows[0]!.prompt).toBe('Which is prime?\nA. 4\nB. 6\nC. 7');
    const numbered = await run(mapFieldsOp, { prompt: '{meta.choices}', listFormat: 'numbered' }, [mcq]);
    expect(numbered.rows[0]!.prompt).toBe('1. 4\n2. 6\n3. 7');
  });

  it('uses id, features and literal braces in templates', async () => {
    const t = task('x9', 'p', { features: { pass_rate: 0.5 } });
    const r = await run(mapFieldsOp, { prompt: '[{id}] {{rate}} = {features.pass_rate}' }, [t]);
    expect(r.rows[0]!.prompt).toBe('[x9] {rate} = 0.5');
  });

  it('moves meta keys into features as numbers (numeric strings parsed) and removes the source', async () => {
    const r = await run(
      mapFieldsOp,
      { rename: { 'meta.pass_rate': 'features.pass_rate', level: 'features.level' } },
      [mcq],
    );
    expect(r.rows[0]!.features).toEqual({ pass_rate: 0.25, level: 3 });
    expect(Object.keys(r.rows[0]!.meta).sort()).toEqual(['choices', 'label', 'question']);
  });

  it('copies keep the source; swaps read the input row', async () => {
    const t = task('s', 'p', { answer: '42', meta: { a: 1, b: 2 } });
    const r = await run(mapFieldsOp, { copy: { answer: 'meta.solution' }, rename: { a: 'b', b: 'a' } }, [t]);
    expect(r.rows[0]!).toEqual({ ...t, meta: { a: 2, b: 1, solution: '42' } });
  });

  it('drops rows with a missing source or a non-numeric feature value, naming the field', async () => {
    const bad = task('bad', '', { meta: { question: 'Q?', level: 'hard' } });
    const r = await run(
      mapFieldsOp,
      { prompt: '{meta.question} {meta.choices}', rename: { level: 'features.level' } },
      [mcq, bad],
    );
    expect(r.rows.map((t) => t.id)).toEqual(['q1']);
    expect(reasons(r)).toEqual([
      [
        'bad',
        'missing meta.choices (needed by the prompt template); meta.level is not a number ("hard"), cannot put it in features.level',
      ],
    ]);
  });

  it('onMissing: skip keeps the row and fills gaps with empty text', async () => {
    const bad = task('bad', 'old', { meta: { question: 'Q?' } });
    const r = await run(mapFieldsOp, { prompt: '{meta.question}|{meta.choices}', onMissing: 'skip' }, [bad]);
    expect(r.rows[0]!.prompt).toBe('Q?|');
    expect(r.metrics).toEqual({ rows_with_missing_fields: 1 });
  });

  it('rejects bad templates and paths in its parameters', () => {
    expect(typeof parseTemplate('{meta.a')).toBe('string');
    expect(mapFieldsOp.params.safeParse({ prompt: 'a } b' }).success).toBe(false);
    expect(mapFieldsOp.params.safeParse({ rename: { prompt: 'meta.p' } }).success).toBe(false);
    expect(mapFieldsOp.params.safeParse({ copy: { 'meta.x': 'id' } }).success).toBe(false);
    expect(mapFieldsOp.params.safeParse({ unknown: 1 }).success).toBe(false);
  });
});
