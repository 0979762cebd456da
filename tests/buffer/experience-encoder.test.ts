import * as arrow from 'apache-arrow';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeWrite, keptRuns } from '../../src/buffer/storage/encoded-write.ts';
import { encodeRowsFast } from '../../src/buffer/storage/experience-arrow.ts';
import { checkExperience } from '../../src/buffer/storage/experience-check.ts';
import {
  encodeExperienceRows,
  isTypedExperienceLayout,
} from '../../src/buffer/storage/experience-encoder.ts';
import {
  EXPERIENCE_COLUMNS,
  EXPERIENCE_SCHEMA,
  payloadFlags,
} from '../../src/buffer/storage/experience-table.ts';
import type { Experience, ExperienceInput } from '../../src/core/experience.ts';
import { columnValues } from '../../src/store/arrow-codec.ts';
import { fitColumns } from '../../src/store/typed-columns.ts';

/** The reference: the column-at-a-time encoder over new (unnumbered) StoredExperience rows. */
const reference = (rows: Experience[]) =>
  encodeRowsFast(
    rows.map((exp) => ({
      exp,
      seq: 0,
      useCount: 0,
      priority: 0,
      lastUsedStep: -1,
      lastUsedAt: 0,
      consumed: false,
    })),
    EXPERIENCE_COLUMNS,
  );

function expectSameCells(inputs: ExperienceInput[]) {
  const rows = inputs.map((e, i) => checkExperience(e, i));
  const { batch, flags } = encodeExperienceRows(rows);
  const fast = new arrow.Table(batch.schema, [batch]);
  const ref = reference(rows);
  expect(fast.numRows).toBe(rows.length);
  expect(fast.schema.fields.map((f) => [f.name, String(f.type), f.nullable, [...f.metadata]])).toEqual(
    ref.schema.fields.map((f) => [f.name, String(f.type), f.nullable, [...f.metadata]]),
  );
  for (const f of ref.schema.fields) {
    // Times beyond 2^53 ms cannot be read back as numbers: their 64-bit words are compared.
    const words = (t: arrow.Table) => Array.from(t.getChild(f.name)!.data[0]!.values as ArrayLike<unknown>);
    if (f.name === 'created_at') expect(words(fast), f.name).toEqual(words(ref));
    else expect(columnValues(fast, f.name), f.name).toEqual(columnValues(ref, f.name));
    expect(fast.getChild(f.name)!.nullCount, f.name).toBe(ref.getChild(f.name)!.nullCount);
  }
  expect([...flags]).toEqual(rows.map(payloadFlags));
  // The write path leaves all-tokens arrays whole (checkRows): the encoder cuts them the same way.
  const whole = encodeExperienceRows(inputs.map((e, i) => checkExperience(e, i, 'w', false)));
  expect(Buffer.from(arrow.tableToIPC(new arrow.Table(whole.batch.schema, [whole.batch]), 'stream'))).toEqual(
    Buffer.from(arrow.tableToIPC(fast, 'stream')),
  );
  expect([...whole.flags]).toEqual([...flags]);
  // Older layouts take the column-at-a-time path, which cuts them too.
  const fitted = fitColumns(EXPERIENCE_COLUMNS, LEGACY);
  const legacy = encodeWrite(
    inputs.map((e, i) => checkExperience(e, i, 'w', false)),
    fitted,
  );
  const legacyRef = encodeWrite(rows, fitted);
  expect(
    Buffer.from(arrow.tableToIPC(new arrow.Table(legacy.batch.schema, [legacy.batch]), 'stream')),
  ).toEqual(
    Buffer.from(arrow.tableToIPC(new arrow.Table(legacyRef.batch.schema, [legacyRef.batch]), 'stream')),
  );
  // And the bytes LanceDB is handed are the same.
  expect(
    Buffer.from(arrow.tableToIPC(fast, 'stream')).equals(Buffer.from(arrow.tableToIPC(ref, 'stream'))),
  ).toBe(true);
}

/** An older table's layout: `info` as plain JSON text. */
const LEGACY = new arrow.Schema(
  EXPERIENCE_SCHEMA.fields.map((f) => (f.name === 'info' ? new arrow.Field('info', new arrow.Utf8()) : f)),
);

const base = (i: number): ExperienceInput => ({
  id: `exp-${i}`,
  taskId: `task-${i >> 1}`,
  taskset: 'arith',
  groupId: `g-${i >> 3}`,
  runIndex: i % 8,
  modelVersion: 1,
  exploreStep: 2,
  response: String(i),
  tokens: [1, 2, 3, 4],
  logprobs: [0, -0.5, -1.25, -2],
  actionMask: [0, 0, 1, 1],
  promptLength: 2,
  reward: 1,
  createdAt: 1_700_000_000_123 + i,
});

const CASES: ExperienceInput[] = [
  base(0),
  { ...base(1), prompt: 'What is 2 + 2?', info: { a: 1, b: ['x'] }, truncated: true, expert: true },
  {
    ...base(2),
    taskset: 'chat é',
    messages: [
      { role: 'user', content: 'hi "there" é 😀' },
      { role: 'assistant', content: '' },
    ],
    advantages: [0.5, -0.5],
    actionMask: [1, 0],
  },
  { ...base(3), prompt: '', response: 'lone \ud800 surrogate', createdAt: 0, reward: Number.NaN },
  { ...base(4), tokens: [], logprobs: [], actionMask: [], promptLength: 0, createdAt: -1_234.6 },
  { ...base(5), id: 'é-long-'.repeat(20), createdAt: 8.64e15, advantages: [] },
  { ...base(6), createdAt: -8.64e15, info: {} },
];

describe('encodeExperienceRows', () => {
  it('writes the same cells, flags and IPC bytes as the column-at-a-time encoder', () => {
    expectSameCells(CASES);
    expectSameCells([CASES[0]!]);
    expectSameCells([]);
    expectSameCells(CASES.slice(2, 4));
  });

  it('is what encodeWrite uses for the typed layout, and an older layout keeps the generic path', () => {
    expect(isTypedExperienceLayout(EXPERIENCE_COLUMNS)).toBe(true);
    const fitted = fitColumns(EXPERIENCE_COLUMNS, LEGACY);
    expect(isTypedExperienceLayout(fitted)).toBe(false);
    const rows = CASES.map((e, i) => checkExperience(e, i));
    const enc = encodeWrite(rows, fitted);
    expect(String(enc.batch.schema.fields.find((f) => f.name === 'info')!.type)).toBe('Utf8');
    expect(enc.batch.schema.fields.find((f) => f.name === 'info')!.metadata.size).toBe(0);
  });

  it('matches the column-at-a-time encoder on arbitrary experiences (property)', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('a b', '"', 'é'));
    const exp = fc
      .record(
        {
          id: fc.string({ minLength: 1 }),
          taskset: fc.constantFrom('s1', 's2', 'é'),
          prompt: text,
          messages: fc.array(
            fc.record({ role: fc.constantFrom('user', 'assistant', 'system', 'tool'), content: text }),
            { maxLength: 3 },
          ),
          response: text,
          tokens: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 10 }),
          promptLength: fc.nat(10),
          bits: fc.array(fc.constantFrom(0, 1), { maxLength: 10 }),
          lp: fc.array(fc.double({ noNaN: false }), { maxLength: 10 }),
          advantages: fc.boolean(),
          whole: fc.boolean(),
          reward: fc.double(),
          advantage: fc.double({ noNaN: true }),
          truncated: fc.boolean(),
          expert: fc.boolean(),
          info: fc.dictionary(
            fc.string({ maxLength: 4 }),
            fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
          ),
          createdAt: fc.oneof(
            fc.constant(0),
            fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }),
            fc.integer({ min: 0, max: 2 ** 45 }),
          ),
        },
        { requiredKeys: ['id', 'taskset', 'response', 'tokens', 'promptLength', 'bits', 'lp', 'reward'] },
      )
      .map((r): ExperienceInput => {
        const n = r.tokens.length;
        const pl = Math.min(r.promptLength, n);
        const resp = n - pl;
        // Response layout, or (whole) all-tokens arrays with a prompt part the check cuts off.
        const padded = <T>(xs: T[], fill: T) => [
          ...(r.whole && pl > 0 ? Array.from({ length: pl }, (_, k) => xs[resp + k] ?? fill) : []),
          ...Array.from({ length: resp }, (_, k) => xs[k] ?? fill),
        ];
        return {
          id: r.id,
          taskId: 't',
          taskset: r.taskset,
          groupId: 'g',
          runIndex: 0,
          modelVersion: 0,
          exploreStep: 0,
          ...(r.prompt !== undefined ? { prompt: r.prompt } : {}),
          ...(r.messages !== undefined ? { messages: r.messages } : {}),
          response: r.response,
          tokens: r.tokens,
          logprobs: padded(r.lp, 0),
          actionMask: padded(r.bits, 1),
          promptLength: pl,
          reward: r.reward,
          ...(r.advantage !== undefined ? { advantage: r.advantage } : {}),
          ...(r.advantages ? { advantages: padded(r.lp, -1) } : {}),
          ...(r.truncated !== undefined ? { truncated: r.truncated } : {}),
          ...(r.expert !== undefined ? { expert: r.expert } : {}),
          ...(r.info !== undefined ? { info: r.info } : {}),
          ...(r.createdAt !== undefined ? { createdAt: r.createdAt } : {}),
        } as ExperienceInput;
      });
    fc.assert(
      fc.property(fc.array(exp, { maxLength: 12 }), (rows) => {
        expectSameCells(rows);
      }),
      { numRuns: 150, seed: 15 },
    );
  });

  it('keptRuns: a call without its duplicates is slices of its own batch, cell for cell what encoding only the kept rows gives, through IPC too', () => {
    const fitted = fitColumns(EXPERIENCE_COLUMNS, LEGACY);
    // As a write call holds them: all-tokens arrays left whole (checkRows).
    const rows = CASES.map((e, i) => checkExperience(e, i, 'w', false));
    for (const columns of [EXPERIENCE_COLUMNS, fitted])
      for (const keep of [[0, 2, 3, 5, 6], [1, 4], [6], [0, 1, 2, 3, 4, 5, 6], []]) {
        const runs = keptRuns(encodeWrite(rows, columns), keep);
        expect(runs.map((r) => [r.at, r.firstRow, r.encoded.flags.length])).toEqual(expectedRuns(keep));
        const direct = encodeWrite(
          keep.map((k) => rows[k]!),
          columns,
        );
        expect(runs.flatMap((r) => [...r.encoded.flags])).toEqual([...direct.flags]);
        if (keep.length === 0) continue;
        const sliced = new arrow.Table(runs.map((r) => r.encoded.batch));
        // What LanceDB is handed: the slices serialized (their offsets rebased by the writer).
        const read = arrow.tableFromIPC(arrow.tableToIPC(sliced, 'file'));
        const ref = new arrow.Table(direct.batch.schema, [direct.batch]);
        for (const f of ref.schema.fields) {
          expect(cells(sliced, f.name), `${f.name} keep ${keep}`).toEqual(cells(ref, f.name));
          expect(cells(read, f.name), `${f.name} keep ${keep} via IPC`).toEqual(cells(ref, f.name));
        }
      }
  });
});

/** A column's cells; times as their 64-bit words (beyond 2^53 ms they cannot be read as numbers). */
function cells(t: arrow.Table, name: string): unknown[] {
  if (name !== 'created_at') return columnValues(t, name);
  const v = t.getChild(name)!;
  return v.data.flatMap((d) =>
    Array.from({ length: d.length }, (_, i) => (d.getValid(i) ? (d.values as BigInt64Array)[i] : null)),
  );
}

/** [index in keep, first call row, rows] of each run of consecutive rows. */
function expectedRuns(keep: number[]): number[][] {
  const out: number[][] = [];
  keep.forEach((k, i) => {
    const last = out[out.length - 1];
    if (last && last[1]! + last[2]! === k) last[2]!++;
    else out.push([i, k, 1]);
  });
  return out;
}
