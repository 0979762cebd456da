import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Table } from 'apache-arrow';
import { Compression, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from 'parquet-wasm';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-file.ts';
import { ConfigError, DataError } from '../core/errors.ts';
import type { Experience } from '../core/experience.ts';
import { type ExportDrop, ExportOptionsSchema } from '../export/export-format.ts';
import { exportFormatRegistry } from '../export/registry.ts';
import { writeDropped } from '../export/write-export.ts';
import { tableToIpcStream } from '../io/arrow-ipc.ts';
import { type ExportRow, exportRow, exportTable } from './export-schema.ts';
import type { Trainer, TrainMetrics } from './trainer.ts';

const CODECS = {
  zstd: Compression.ZSTD,
  snappy: Compression.SNAPPY,
  gzip: Compression.GZIP,
  none: Compression.UNCOMPRESSED,
} as const;

/** The layouts a batch can be written in: Winnow's own batch layout, or a TRL format (docs/exports.md). */
export const EXPORT_TRAINER_FORMATS = ['winnow', 'trl-sft', 'trl-messages', 'trl-dpo'] as const;

/** The format settings of the export trainer (shared with its registry entry). */
export const EXPORT_TRAINER_FORMAT_PARAMS = {
  format: z
    .enum(EXPORT_TRAINER_FORMATS)
    .default('winnow')
    .describe(
      "Layout of the batch files: 'winnow' (the batch layout of docs/trainer.md) or a TRL format of docs/exports.md.",
    ),
  sftPick: ExportOptionsSchema.shape.sftPick.describe(
    'trl-sft, trl-messages: the best rollout of each group, or every rollout.',
  ),
  minReward: ExportOptionsSchema.shape.minReward.describe(
    'trl-sft, trl-messages: rollouts with a lower reward are left out (recorded).',
  ),
  minMargin: ExportOptionsSchema.shape.minMargin.describe(
    'trl-dpo: smallest chosen−rejected reward margin kept (ties are always dropped).',
  ),
  conversational: ExportOptionsSchema.shape.conversational.describe(
    'trl-*: chat turns even when no row of the batch has messages.',
  ),
};

export const ExportTrainerConfigSchema = z
  .object({
    /** Folder the batch files go to (created if missing). */
    dir: z.string().min(1),
    compression: z.enum(['zstd', 'snappy', 'gzip', 'none']).default('zstd'),
    /** File name prefix; files are `${prefix}${version padded to 6}.parquet`. */
    prefix: z.string().default('batch-'),
    ...EXPORT_TRAINER_FORMAT_PARAMS,
  })
  .strict();
export type ExportTrainerConfig = z.infer<typeof ExportTrainerConfigSchema>;

/** The export trainer's whole state (written by save). */
const ExportStateSchema = z.object({
  format: z.literal('winnow-export-trainer'),
  version: z.number().int().nonnegative(),
  dir: z.string(),
});

/** File name of the batch that produced `version`. */
export function exportBatchFile(version: number, prefix = 'batch-'): string {
  return `${prefix}${String(version).padStart(6, '0')}.parquet`;
}

/**
 * A trainer that trains nothing: each `step` writes the batch as one Parquet file
 * (`batch-000001.parquet`, …) for a trainer written in another language, and bumps `version`.
 * The layout is EXPORT_SCHEMA (docs/trainer.md) or, with `format`, a TRL format of
 * docs/exports.md (rows a TRL format leaves out are listed in `batch-….parquet.dropped.jsonl`).
 * Files appear atomically, so a watcher never reads half a batch.
 */
export class ExportTrainer implements Trainer {
  readonly name: string = 'export';
  readonly config: ExportTrainerConfig;
  private currentVersion: number;

  constructor(config: z.input<typeof ExportTrainerConfigSchema>, options: { version?: number } = {}) {
    const parsed = ExportTrainerConfigSchema.safeParse(config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError({
        path: ['trainer', ...issue.path.map(String)].join('.'),
        message: issue.message,
      });
    }
    this.config = parsed.data;
    this.currentVersion = options.version ?? 0;
  }

  get version(): number {
    return this.currentVersion;
  }

  /** Path of the file the next step will write. */
  nextFile(): string {
    return join(this.config.dir, exportBatchFile(this.currentVersion + 1, this.config.prefix));
  }

  async step(batch: readonly Experience[]): Promise<TrainMetrics> {
    const version = this.currentVersion + 1;
    // Every format reads the per-token arrays through the one response layout (and fails the same way).
    const rows = batch.map((e) => exportRow(e, version));
    const built = this.build(batch, rows);
    const props = new WriterPropertiesBuilder()
      .setCompression(CODECS[this.config.compression])
      .setCreatedBy('winnow export trainer')
      .build();
    const bytes = writeParquet(WasmTable.fromIPCStream(tableToIpcStream(built.table)), props);
    await mkdir(this.config.dir, { recursive: true });
    const file = join(this.config.dir, exportBatchFile(version, this.config.prefix));
    if (built.dropped.length > 0) await writeDropped(file, built.dropped);
    await writeFileAtomic(file, bytes);
    this.currentVersion = version;
    let tokens = 0;
    let rewardSum = 0;
    let rewarded = 0;
    for (const r of rows) {
      tokens += r.action_mask.reduce((a, b) => a + b, 0);
      if (Number.isFinite(r.reward)) {
        rewardSum += r.reward;
        rewarded++;
      }
    }
    return {
      sequences: built.table.numRows,
      tokens,
      /** Mean of the finite rewards (NaN rewards are exported but not averaged). */
      reward_mean: rewarded > 0 ? rewardSum / rewarded : 0,
      bytes: bytes.length,
      ...(this.config.format !== 'winnow' ? { dropped: built.dropped.length } : {}),
    };
  }

  /** The batch's table in the configured format, and (TRL formats) the rows or groups it left out. */
  private build(batch: readonly Experience[], rows: ExportRow[]): { table: Table; dropped: ExportDrop[] } {
    if (this.config.format === 'winnow') return { table: exportTable(rows), dropped: [] };
    const format = exportFormatRegistry().get(this.config.format, 'trainer.format');
    const { format: _f, dir: _d, compression: _c, prefix: _p, ...options } = this.config;
    const result = format.build(
      { kind: 'experiences', table: 'batch', experiences: batch },
      ExportOptionsSchema.parse(options),
    );
    return { table: result.table, dropped: result.dropped };
  }

  async save(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const state: z.infer<typeof ExportStateSchema> = {
      format: 'winnow-export-trainer',
      version: this.currentVersion,
      dir: this.config.dir,
    };
    await writeFileAtomic(join(dir, 'export-trainer.json'), `${JSON.stringify(state, null, 2)}\n`);
  }

  async load(dir: string): Promise<void> {
    const path = join(dir, 'export-trainer.json');
    let json: unknown;
    try {
      json = JSON.parse(await readFile(path, 'utf8'));
    } catch (err) {
      throw new DataError({
        file: path,
        message: `cannot read the export trainer state (${(err as Error).message})`,
      });
    }
    const parsed = ExportStateSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new DataError({ file: path, message: `${issue.path.join('.') || '<root>'}: ${issue.message}` });
    }
    this.currentVersion = parsed.data.version;
  }
}
