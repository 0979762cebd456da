import type * as arrow from 'apache-arrow';
import { z } from 'zod';
import type { Experience } from '../core/experience.ts';
import type { Task } from '../core/task.ts';

/**
 * The contract of an export format: it reads task rows or experience rows (or, for the plain
 * `winnow` format, the stored table) and builds one Arrow table with its exact schema, plus the
 * rows it left out and why. Formats live one per file in this folder; registry.ts lists them.
 */

export const ExportOptionsSchema = z.strictObject({
  /** verl: `extra_info.split` (left out when not given). */
  split: z.string().min(1).optional(),
  /** verl: `ability` for every row (default: the task's `meta.ability` when a string, else 'general'). */
  ability: z.string().min(1).optional(),
  /** verl: `data_source` for every row (default: the task's taskset). */
  dataSource: z.string().min(1).optional(),
  /** verl: `reward_model.style`. */
  rewardStyle: z.string().min(1).default('rule'),
  /** trl-sft / trl-messages: the best rollout of each group, or every rollout (both subject to minReward). */
  sftPick: z.enum(['best', 'all']).default('best'),
  /** trl-sft / trl-messages: rollouts with a lower reward are left out (recorded). */
  minReward: z.number().optional(),
  /** trl-dpo: smallest chosen−rejected reward margin kept (ties are always dropped). */
  minMargin: z.number().nonnegative().default(0),
  /** trl-*: chat turns even when no row has messages. */
  conversational: z.boolean().default(false),
  /** Nested paths (`meta.source`, `info.tags[]`) stored as JSON text instead of a typed field. */
  jsonText: z.array(z.string().min(1)).default([]),
  /** trl-dpo: pairs people labelled in `winnow studio`; a labelled group yields its labelled pair. */
  labelledPairs: z
    .array(z.object({ groupId: z.string(), chosenId: z.string(), rejectedId: z.string() }))
    .optional(),
});
export type ExportOptions = z.output<typeof ExportOptionsSchema>;
export type ExportOptionsInput = z.input<typeof ExportOptionsSchema>;

/** What kind of table a format reads. */
export type ExportInputKind = 'tasks' | 'experiences';

/** The rows to export, decoded as the format needs them. */
export type ExportSource =
  | { kind: 'tasks'; table: string; tasks: readonly Task[] }
  | { kind: 'experiences'; table: string; experiences: readonly Experience[] }
  | { kind: 'stored'; table: string; tableKind: ExportInputKind | 'other'; data: arrow.Table };

/** A row (or group) left out of an export, with its reason: nothing is dropped silently. */
export interface ExportDrop {
  format: string;
  /** The experience, group or task id. */
  id: string;
  taskId?: string;
  reason: string;
  detail: string;
}

export interface ExportResult {
  table: arrow.Table;
  /** The rows as plain objects (written as they are for JSONL output). */
  rows: Record<string, unknown>[];
  dropped: ExportDrop[];
  /** One line each: fields left out of the schema and why. */
  notes: string[];
}

export interface ExportFormat {
  name: string;
  /** One line for --help and docs. */
  summary: string;
  /** The table kind it reads; `stored` formats take any table as it is. */
  reads: ExportInputKind | 'stored';
  build(source: ExportSource, options: ExportOptions): ExportResult;
}
