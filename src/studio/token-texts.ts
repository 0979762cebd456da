import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorMessage } from '../core/errors.ts';
import { readRuns } from '../inspect/run-views.ts';
import { RUN_CONFIG_FILE } from '../lifecycle/run/run-plan.ts';
import { TokenizerSpecSchema } from '../models/tokenizer.ts';
import { loadTokenizer } from '../models/tokenizer-load.ts';
import { TINY_VOCAB } from '../tiny/vocab.ts';
import type { StudioContext } from './studio-context.ts';

/**
 * How the token view names tokens: `decode(id)` gives one token's text, or — when the run's
 * tokenizer cannot be found or loaded — `decode` is null and `note` says why (the view shows ids).
 */
export interface TokenDecoder {
  tokenizer: string | null;
  note: string | null;
  decode: ((id: number) => string) | null;
}

const idsOnly = (note: string): TokenDecoder => ({ tokenizer: null, note, decode: null });

/** The explorer model of a run's saved config (run-config.json), when it names one. */
function savedModel(runDir: string): { type?: unknown; params?: { tokenizer?: unknown } } | null {
  const file = join(runDir, RUN_CONFIG_FILE);
  if (!existsSync(file)) return null;
  try {
    const stored = JSON.parse(readFileSync(file, 'utf8')) as { config?: { explorer?: { model?: unknown } } };
    const model = stored.config?.explorer?.model;
    return model && typeof model === 'object' ? (model as { type?: unknown }) : null;
  } catch {
    return null;
  }
}

/**
 * The tokenizer of the run that wrote `table` (the run whose buffer table it is; the latest such
 * run when several share it): the tiny policy's vocabulary for `tiny` models, the configured
 * `explorer.model.params.tokenizer` for served ones. A `{ path }` tokenizer is resolved against the
 * Studio's project folder (the run folder does not record the config file's folder).
 */
export async function tokenDecoderFor(ctx: StudioContext, table: string): Promise<TokenDecoder> {
  const runs = (await readRuns(ctx.dbDir)).filter((r) => r.bufferTable === table);
  const run = runs[runs.length - 1];
  if (!run) return idsOnly(`no run records table '${table}' as its buffer, so its tokenizer is unknown`);
  const dir = run.runDir ? resolve(run.runDir) : join(resolve(ctx.runsDir), run.runId);
  const model = savedModel(dir);
  if (!model) return idsOnly(`run '${run.runId}' saved no explorer model in ${RUN_CONFIG_FILE}`);
  if (model.type === 'tiny')
    return {
      tokenizer: 'tiny policy vocabulary',
      note: null,
      decode: (id) => TINY_VOCAB[id] ?? `<${id}>`,
    };
  const spec = TokenizerSpecSchema.safeParse(model.params?.tokenizer);
  if (!spec.success)
    return idsOnly(`run '${run.runId}' configures no tokenizer (explorer.model.params.tokenizer)`);
  try {
    const tok = await loadTokenizer(spec.data, { baseDir: resolve(ctx.rootDir) });
    return { tokenizer: tok.name, note: null, decode: (id) => tok.decode([id]) };
  } catch (err) {
    return idsOnly(`the tokenizer of run '${run.runId}' could not be loaded: ${errorMessage(err)}`);
  }
}
