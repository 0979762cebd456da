import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';

/**
 * A character n-gram causal language model with add-k smoothing: the local scorer of
 * perplexity_filter. Data-Juicer scores perplexity with a KenLM word n-gram model per language;
 * this is the same kind of model (counts, no neural net) over Unicode code points, so it needs no
 * word splitter and treats Chinese, Japanese and English alike. The project builds one from text
 * it ships (scripts/make-tiny-lm.ts); users build theirs from their own clean corpus.
 *
 *   P(c | ctx) = (count(ctx, c) + k) / (count(ctx) + k · V)
 *
 * where ctx is the previous `order - 1` symbols (BOS-padded at the start), V is the number of
 * symbols the model predicts (its characters, UNK and EOS). A text of n characters is scored as
 * n + 1 predictions: each character, then EOS.
 */

/** Start-of-text padding in contexts (never predicted). */
export const BOS = '\u0002';
/** End of text (predicted once per text). */
export const EOS = '\u0003';
/** Any character the model did not see in training. */
export const UNK = '\uFFFD';

export const CHAR_NGRAM_FORMAT = 'winnow-char-ngram';

export const CharNgramFileSchema = z.strictObject({
  format: z.literal(CHAR_NGRAM_FORMAT),
  version: z.literal(1),
  order: z.number().int().min(1).max(6),
  k: z.number().positive(),
  /** Predicted symbols: the training characters (sorted), then UNK and EOS. */
  vocab: z.array(z.string()),
  /** context → next symbol → count. */
  counts: z.record(z.string(), z.record(z.string(), z.number().int().positive())),
  /** Where the training text came from (for reports). */
  source: z.string().default(''),
});
export type CharNgramFile = z.infer<typeof CharNgramFileSchema>;

export interface CharNgramOptions {
  order?: number;
  k?: number;
  source?: string;
}

/** Symbols of a text as the model reads them: code points, unknown (or marker) ones as UNK. */
function symbols(text: string, known: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const ch of text) out.push(known.has(ch) ? ch : UNK);
  return out;
}

/** Count every (context, next) pair of `texts`. Deterministic: vocab sorted, keys inserted in text order. */
export function trainCharNgram(texts: readonly string[], opts: CharNgramOptions = {}): CharNgramFile {
  const order = opts.order ?? 3;
  const k = opts.k ?? 0.1;
  const chars = new Set<string>();
  for (const t of texts) for (const ch of t) if (ch !== BOS && ch !== EOS && ch !== UNK) chars.add(ch);
  const vocab = [...chars].sort();
  vocab.push(UNK, EOS);
  const known = new Set(chars);
  const counts: Record<string, Record<string, number>> = {};
  for (const t of texts) {
    const seq = [...Array<string>(order - 1).fill(BOS), ...symbols(t, known), EOS];
    for (let i = order - 1; i < seq.length; i++) {
      const ctx = seq.slice(i - order + 1, i).join('');
      const next = seq[i]!;
      const row = counts[ctx] ?? {};
      row[next] = (row[next] ?? 0) + 1;
      counts[ctx] = row;
    }
  }
  return { format: CHAR_NGRAM_FORMAT, version: 1, order, k, vocab, counts, source: opts.source ?? '' };
}

/** A loaded model: scores texts. */
export class CharNgramLm {
  readonly name: string;
  readonly file: CharNgramFile;
  private readonly known: ReadonlySet<string>;
  /** Per seen context: log P of each seen next symbol, and of any unseen one. */
  private readonly table = new Map<string, { seen: Map<string, number>; unseen: number }>();
  /** log P of any symbol after a context never seen in training: k / (k · V). */
  private readonly unseenContext: number;

  constructor(file: CharNgramFile, name = 'char-ngram') {
    this.file = file;
    this.name = name;
    this.known = new Set(file.vocab.filter((s) => s !== UNK && s !== EOS));
    const kV = file.k * file.vocab.length;
    this.unseenContext = Math.log(file.k / kV);
    for (const [ctx, row] of Object.entries(file.counts)) {
      let total = 0;
      for (const c of Object.values(row)) total += c;
      const seen = new Map<string, number>();
      for (const [sym, c] of Object.entries(row)) seen.set(sym, Math.log((c + file.k) / (total + kV)));
      this.table.set(ctx, { seen, unseen: Math.log(file.k / (total + kV)) });
    }
  }

  /** Read a model file; a missing or malformed file is a ConfigError naming it. */
  static load(path: string): CharNgramLm {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      throw new ConfigError({
        path: 'model.path',
        file: path,
        message: missing ? 'no language model at this path' : `not JSON: ${(err as Error).message}`,
        hint: 'build one with: node scripts/make-tiny-lm.ts OUT.json --corpus CORPUS.txt',
      });
    }
    const parsed = CharNgramFileSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError({
        path: `model.${issue.path.join('.')}`,
        file: path,
        message: `not a ${CHAR_NGRAM_FORMAT} model: ${issue.message}`,
      });
    }
    return new CharNgramLm(parsed.data, `char-ngram:${path}`);
  }

  save(path: string): void {
    writeFileSync(path, `${JSON.stringify(this.file)}\n`);
  }

  /** Natural-log probability of each character of `text`, then of EOS (length = code points + 1). */
  logprobs(text: string): number[] {
    const { order } = this.file;
    // The context: the last order − 1 symbols (a symbol may be two UTF-16 units, so kept as an array).
    const win: string[] = Array<string>(order - 1).fill(BOS);
    let ctx = win.join('');
    const out: number[] = [];
    const step = (sym: string) => {
      const t = this.table.get(ctx);
      out.push(t === undefined ? this.unseenContext : (t.seen.get(sym) ?? t.unseen));
      if (order > 1) {
        win.shift();
        win.push(sym);
        ctx = order === 2 ? sym : win.join('');
      }
    };
    for (const ch of text) step(this.known.has(ch) ? ch : UNK);
    step(EOS);
    return out;
  }
}
