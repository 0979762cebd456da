import { describe, expect, it } from 'vitest';
import type { Experience } from '../../src/core/experience.ts';
import { type ExportOptionsInput, ExportOptionsSchema } from '../../src/export/export-format.ts';
import { EXPORT_FORMAT_NAMES, exportFormatRegistry } from '../../src/export/registry.ts';
import { buildTrlDpo } from '../../src/export/trl-dpo-format.ts';
import { buildTrlMessages } from '../../src/export/trl-messages-format.ts';
import { buildTrlPrompt } from '../../src/export/trl-prompt-format.ts';
import { buildTrlSft } from '../../src/export/trl-sft-format.ts';
import { buildVerl } from '../../src/export/verl-format.ts';
import { plainRows, schemaText } from './arrow-text.ts';
import { EXPERIENCES, exp, TASKS } from './fixture.ts';

/** Golden schemas and exact values of every trainer-ready format, on the small fixture. */
const opts = (o: ExportOptionsInput = {}) => ExportOptionsSchema.parse(o);
const CHAT = 'list<struct<role: string not null, content: string not null> not null>';
const FEATURES = 'struct<difficulty: double, pass_rate: double>';
const META =
  'struct<source: string, tags: list<string>, level: double, ability: string, extra: struct<ok: bool>>';
const PROVENANCE = [
  'id: string not null',
  'task_id: string not null',
  'taskset: string not null',
  'group_id: string not null',
  'reward: double not null',
  'model_version: int32 not null',
];
const plainOnly = EXPERIENCES.filter((e) => e.messages === undefined);

describe('the registry', () => {
  it('lists the formats in order, and an unknown name suggests the nearest', () => {
    expect(EXPORT_FORMAT_NAMES).toEqual([
      'winnow',
      'verl',
      'trl-prompt',
      'trl-sft',
      'trl-messages',
      'trl-dpo',
      'trajectory-messages',
      'trajectory-steps',
    ]);
    expect(() => exportFormatRegistry().get('verll', 'format')).toThrow(
      "format: unknown export format 'verll' (did you mean 'verl'?)",
    );
  });
});

describe('verl', () => {
  it('schema and rows', () => {
    const r = buildVerl(TASKS, opts({ split: 'train' }));
    expect(schemaText(r.table.schema)).toEqual([
      'data_source: string not null',
      `prompt: ${CHAT} not null`,
      'ability: string not null',
      'reward_model: struct<style: string not null, ground_truth: string> not null',
      `extra_info: struct<index: int64 not null, split: string not null, task_id: string not null, taskset: string not null, features: ${FEATURES}, meta: ${META}> not null`,
    ]);
    expect(plainRows(r.table)).toEqual([
      {
        data_source: 'arith',
        prompt: [{ role: 'user', content: '1+2=' }],
        ability: 'math',
        reward_model: { style: 'rule', ground_truth: '3' },
        extra_info: {
          index: 0,
          split: 'train',
          task_id: 't1',
          taskset: 'arith',
          features: { difficulty: 0.25, pass_rate: null },
          meta: { source: 'gen', tags: ['add'], level: 1, ability: 'math', extra: null },
        },
      },
      {
        data_source: 'arith',
        prompt: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: '2*3=' },
        ],
        ability: 'general',
        reward_model: { style: 'rule', ground_truth: '6' },
        extra_info: {
          index: 1,
          split: 'train',
          task_id: 't2',
          taskset: 'arith',
          features: { difficulty: 1, pass_rate: 0.5 },
          meta: { source: 'gen', tags: null, level: 2.5, ability: null, extra: { ok: true } },
        },
      },
      {
        data_source: 'open',
        prompt: [{ role: 'user', content: 'Name a color.' }],
        ability: 'general',
        reward_model: { style: 'rule', ground_truth: null },
        extra_info: {
          index: 2,
          split: 'train',
          task_id: 't3',
          taskset: 'open',
          features: { difficulty: null, pass_rate: null },
          meta: { source: 'hand', tags: [], level: null, ability: null, extra: null },
        },
      },
    ]);
    expect(r.dropped).toEqual([]);
  });

  it('without --split there is no split field; options override ability, data_source and style', () => {
    const r = buildVerl(
      [TASKS[0]!],
      opts({ ability: 'arithmetic', dataSource: 'my/set', rewardStyle: 'model' }),
    );
    const [row] = plainRows(r.table);
    expect(row).toMatchObject({
      data_source: 'my/set',
      ability: 'arithmetic',
      reward_model: { style: 'model', ground_truth: '3' },
    });
    expect(Object.keys(row!.extra_info as object)).toEqual([
      'index',
      'task_id',
      'taskset',
      'features',
      'meta',
    ]);
  });

  it('leaves out features and meta that are empty in every row, with notes', () => {
    const r = buildVerl([{ ...TASKS[2]!, meta: {} }], opts());
    expect(schemaText(r.table.schema)[4]).toBe(
      'extra_info: struct<index: int64 not null, task_id: string not null, taskset: string not null> not null',
    );
    expect(r.notes).toEqual([
      "extra_info: 'features' is left out: it is an empty object in every row",
      "extra_info: 'meta' is left out: it is an empty object in every row",
    ]);
  });
});

describe('trl-prompt', () => {
  it('chat turns when any task has messages', () => {
    const r = buildTrlPrompt(TASKS, opts());
    expect(schemaText(r.table.schema)).toEqual([
      `prompt: ${CHAT} not null`,
      'answer: string',
      'task_id: string not null',
      'taskset: string not null',
      `features: ${FEATURES}`,
      `meta: ${META}`,
    ]);
    expect(plainRows(r.table).map((row) => [row.prompt, row.answer, row.task_id])).toEqual([
      [[{ role: 'user', content: '1+2=' }], '3', 't1'],
      [
        [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: '2*3=' },
        ],
        '6',
        't2',
      ],
      [[{ role: 'user', content: 'Name a color.' }], null, 't3'],
    ]);
  });

  it('plain strings when no task has messages, unless --conversational', () => {
    const plain = [TASKS[0]!, TASKS[2]!];
    const r = buildTrlPrompt(plain, opts());
    expect(schemaText(r.table.schema)[0]).toBe('prompt: string not null');
    expect(plainRows(r.table).map((row) => row.prompt)).toEqual(['1+2=', 'Name a color.']);
    const c = buildTrlPrompt(plain, opts({ conversational: true }));
    expect(plainRows(c.table)[0]!.prompt).toEqual([{ role: 'user', content: '1+2=' }]);
  });
});

describe('trl-sft and trl-messages', () => {
  it('best rollout per group (ties: lowest runIndex), the rest recorded as not_best', () => {
    const r = buildTrlSft(plainOnly, opts());
    expect(schemaText(r.table.schema)).toEqual([
      'prompt: string not null',
      'completion: string not null',
      ...PROVENANCE,
    ]);
    expect(plainRows(r.table)).toEqual([
      {
        prompt: '1+2=',
        completion: '3',
        id: 'g1-0',
        task_id: 't1',
        taskset: 'arith',
        group_id: 'g1',
        reward: 1,
        model_version: 2,
      },
      {
        prompt: '1+2=',
        completion: '3!',
        id: 'g3-0',
        task_id: 't1',
        taskset: 'arith',
        group_id: 'g3',
        reward: 0.5,
        model_version: 2,
      },
      {
        prompt: 'Name a color.',
        completion: 'red',
        id: 'g4-0',
        task_id: 't3',
        taskset: 'open',
        group_id: 'g4',
        reward: 1,
        model_version: 2,
      },
    ]);
    expect(r.dropped.map((d) => [d.id, d.reason, d.detail])).toEqual([
      ['g1-1', 'not_best', 'group g1: rollout g1-0 has reward 1'],
      ['g1-2', 'not_best', 'group g1: rollout g1-0 has reward 1'],
      ['g3-1', 'not_best', 'group g3: rollout g3-0 has reward 0.5'],
    ]);
  });

  it('all rollouts at or above --min-reward; NaN rewards and prompt-less rows recorded', () => {
    const batch = [
      ...plainOnly,
      exp({ id: 'n-0', groupId: 'n', taskId: 't1', reward: Number.NaN }),
      exp({ id: 'p-0', groupId: 'p', taskId: 't1', prompt: undefined }),
    ];
    const r = buildTrlSft(batch, opts({ sftPick: 'all', minReward: 0.5 }));
    expect(plainRows(r.table).map((row) => row.id)).toEqual(['g1-0', 'g1-2', 'g3-0', 'g4-0']);
    expect(r.dropped.map((d) => [d.id, d.reason])).toEqual([
      ['g1-1', 'below_min_reward'],
      ['g3-1', 'below_min_reward'],
      ['n-0', 'invalid_reward'],
      ['p-0', 'no_prompt'],
    ]);
    expect(r.dropped[0]!.detail).toBe('reward 0 < minReward 0.5');
  });

  it('chat turns when any chosen rollout has messages; a multi-turn conversation splits before its first assistant turn', () => {
    const multi = exp({
      id: 'm-0',
      groupId: 'm',
      taskId: 't2',
      prompt: undefined,
      messages: [
        { role: 'user', content: 'a?' },
        { role: 'assistant', content: 'A' },
        { role: 'user', content: 'b?' },
        { role: 'assistant', content: 'B' },
      ],
      response: 'A\nB',
    });
    const r = buildTrlSft([EXPERIENCES[0]!, multi], opts());
    expect(schemaText(r.table.schema).slice(0, 2)).toEqual([
      `prompt: ${CHAT} not null`,
      `completion: ${CHAT} not null`,
    ]);
    expect(plainRows(r.table).map((row) => [row.prompt, row.completion])).toEqual([
      [[{ role: 'user', content: '1+2=' }], [{ role: 'assistant', content: '3' }]],
      [
        [{ role: 'user', content: 'a?' }],
        [
          { role: 'assistant', content: 'A' },
          { role: 'user', content: 'b?' },
          { role: 'assistant', content: 'B' },
        ],
      ],
    ]);
    const m = buildTrlMessages([EXPERIENCES[3]!, multi], opts());
    expect(schemaText(m.table.schema)).toEqual([`messages: ${CHAT} not null`, ...PROVENANCE]);
    expect(plainRows(m.table).map((row) => row.messages)).toEqual([
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '2*3=' },
        { role: 'assistant', content: '6' },
      ],
      multi.messages,
    ]);
  });
});

describe('trl-dpo', () => {
  const pairColumns = (text: string) => [
    `prompt: ${text} not null`,
    `chosen: ${text} not null`,
    `rejected: ${text} not null`,
    'task_id: string not null',
    'taskset: string not null',
    'group_id: string not null',
    'chosen_id: string not null',
    'rejected_id: string not null',
    'chosen_reward: double not null',
    'rejected_reward: double not null',
    'margin: double not null',
  ];

  it('best vs worst per group; the tie and the single rollout recorded with their reasons', () => {
    const r = buildTrlDpo(EXPERIENCES, opts());
    expect(schemaText(r.table.schema)).toEqual(pairColumns('string'));
    expect(plainRows(r.table)).toEqual([
      {
        prompt: '1+2=',
        chosen: '3',
        rejected: '4',
        task_id: 't1',
        taskset: 'arith',
        group_id: 'g1',
        chosen_id: 'g1-0',
        rejected_id: 'g1-1',
        chosen_reward: 1,
        rejected_reward: 0,
        margin: 1,
      },
      {
        prompt: '1+2=',
        chosen: '3!',
        rejected: '5',
        task_id: 't1',
        taskset: 'arith',
        group_id: 'g3',
        chosen_id: 'g3-0',
        rejected_id: 'g3-1',
        chosen_reward: 0.5,
        rejected_reward: 0.25,
        margin: 0.25,
      },
    ]);
    expect(r.dropped).toEqual([
      { format: 'trl-dpo', id: 'g2', taskId: 't2', reason: 'tie', detail: 'all 2 rollouts have reward 0.5' },
      {
        format: 'trl-dpo',
        id: 'g4',
        taskId: 't3',
        reason: 'single_rollout',
        detail: 'group has 1 rollout; a pair needs 2',
      },
    ]);
  });

  it('--min-margin drops the small margin; chat turns when a pair has messages', () => {
    const r = buildTrlDpo(EXPERIENCES, opts({ minMargin: 0.5 }));
    expect(plainRows(r.table).map((row) => row.group_id)).toEqual(['g1']);
    expect(r.dropped.map((d) => [d.id, d.reason])).toEqual([
      ['g2', 'tie'],
      ['g3', 'below_margin'],
      ['g4', 'single_rollout'],
    ]);
    const chat: Experience[] = [
      { ...EXPERIENCES[3]!, reward: 1 },
      { ...EXPERIENCES[4]!, reward: 0 },
    ];
    const c = buildTrlDpo(chat, opts());
    expect(schemaText(c.table.schema)).toEqual(pairColumns(CHAT));
    expect(plainRows(c.table)[0]).toMatchObject({
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '2*3=' },
      ],
      chosen: [{ role: 'assistant', content: '6' }],
      rejected: [{ role: 'assistant', content: 'six' }],
    });
  });
});
