import { Registry } from '../core/registry.ts';
import type { ExportFormat } from './export-format.ts';
import { trajectoryMessagesFormat, trajectoryStepsFormat } from './trajectory-formats.ts';
import { trlDpoFormat } from './trl-dpo-format.ts';
import { trlMessagesFormat } from './trl-messages-format.ts';
import { trlPromptFormat } from './trl-prompt-format.ts';
import { trlSftFormat } from './trl-sft-format.ts';
import { verlFormat } from './verl-format.ts';
import { winnowFormat } from './winnow-format.ts';

/** Every export format, in the order --help and docs/exports.md list them (`winnow` is the default). */
export const EXPORT_FORMATS: readonly ExportFormat[] = [
  winnowFormat,
  verlFormat,
  trlPromptFormat,
  trlSftFormat,
  trlMessagesFormat,
  trlDpoFormat,
  trajectoryMessagesFormat,
  trajectoryStepsFormat,
];

export const EXPORT_FORMAT_NAMES = EXPORT_FORMATS.map((f) => f.name);

/** Export formats by name; an unknown name is a ConfigError naming the closest ones. */
export function exportFormatRegistry(): Registry<ExportFormat> {
  const reg = new Registry<ExportFormat>('export format');
  for (const f of EXPORT_FORMATS) reg.register(f);
  return reg;
}
