import { ConfigError } from '../core/errors.ts';

/**
 * A back-off n-gram language model in ARPA form (what KenLM's lmplz writes and reads): per n-gram
 * a log10 probability and, for n-grams that are contexts, a log10 back-off weight. Scoring follows
 * KenLM's `Model.score(sentence, bos=True, eos=True)`: the tokens after `<s>`, then `</s>`; an
 * n-gram not in the model backs off to its shorter context, adding the context's back-off weight;
 * a token not in the vocabulary scores as `<unk>`.
 */

export const BOS = '<s>';
export const EOS = '</s>';
export const UNK = '<unk>';

/** An n-gram's tokens joined by one space. */
type Key = string;

export interface BackoffLmData {
  order: number;
  /** n-gram (tokens joined by a space) → [log10 p, log10 back-off (0 when none)]. */
  grams: Map<Key, [number, number]>;
}

/** A loaded back-off model over string tokens. */
export class BackoffLm {
  readonly order: number;
  private readonly grams: Map<Key, [number, number]>;
  private readonly unkLog10: number;

  constructor(data: BackoffLmData) {
    this.order = data.order;
    this.grams = data.grams;
    const unk = data.grams.get(UNK);
    // An ARPA file without <unk> (lmplz always writes one) gives unknown tokens KenLM's default −100.
    this.unkLog10 = unk === undefined ? -100 : unk[0];
  }

  /** Number of n-grams of every order. */
  get size(): number {
    return this.grams.size;
  }

  has(token: string): boolean {
    return this.grams.has(token);
  }

  /** log10 P(token | context), context oldest first (at most order − 1 used). */
  private log10Prob(context: readonly string[], token: string): number {
    let bow = 0;
    for (let start = Math.max(0, context.length - this.order + 1); start <= context.length; start++) {
      const hist = context.slice(start);
      const hit = this.grams.get(hist.length === 0 ? token : `${hist.join(' ')} ${token}`);
      if (hit !== undefined) return bow + hit[0];
      if (hist.length > 0) bow += this.grams.get(hist.join(' '))?.[1] ?? 0;
    }
    return bow + this.unkLog10;
  }

  /**
   * log10 probability of each token of one sentence, then of `</s>` (KenLM's full score with bos
   * and eos, token by token; their sum is `Model.score`): the first token in the context of `<s>`.
   * Tokens the model does not know read as `<unk>`.
   */
  tokenLog10s(tokens: readonly string[]): number[] {
    const ctx: string[] = [BOS];
    const out: number[] = [];
    const keep = this.order - 1;
    for (const raw of [...tokens, EOS]) {
      const tok = raw === EOS || this.grams.has(raw) ? raw : UNK;
      out.push(this.log10Prob(ctx, tok));
      ctx.push(tok);
      if (ctx.length > keep) ctx.shift();
    }
    return out;
  }

  /** log10 probability of one sentence (KenLM's `Model.score(s, bos=True, eos=True)`). */
  scoreSentence(tokens: readonly string[]): number {
    let sum = 0;
    for (const lp of this.tokenLog10s(tokens)) sum += lp;
    return sum;
  }
}

/** Where an ARPA line is wrong: a ConfigError naming the file and the line. */
function arpaError(file: string, line: number, message: string): ConfigError {
  return new ConfigError({
    path: `line ${line}`,
    file,
    message: `not an ARPA language model: ${message}`,
    hint: "an ARPA text file as KenLM's lmplz writes it (\\data\\, ngram N=count, \\N-grams: sections, \\end\\)",
  });
}

/** Parse ARPA text (KenLM's lmplz output, or the shipped default model). */
export function parseArpa(text: string, file: string): BackoffLm {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length && lines[i]!.trim() !== '\\data\\') i++;
  if (i === lines.length) throw arpaError(file, 1, 'no \\data\\ line');
  const declared = new Map<number, number>();
  for (i++; i < lines.length; i++) {
    const m = /^ngram (\d+)=(\d+)$/.exec(lines[i]!.trim());
    if (m) declared.set(Number(m[1]), Number(m[2]));
    else if (lines[i]!.trim() !== '') break;
  }
  if (declared.size === 0) throw arpaError(file, i + 1, 'no ngram N=count line');
  const order = Math.max(...declared.keys());
  const grams = new Map<Key, [number, number]>();
  let n = 0;
  let seen = 0;
  for (; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const section = /^\\(\d+)-grams:$/.exec(line);
    if (section) {
      if (n > 0 && seen !== declared.get(n))
        throw arpaError(file, i + 1, `${seen} ${n}-grams, ${declared.get(n)} declared`);
      n = Number(section[1]);
      seen = 0;
      continue;
    }
    if (line === '\\end\\') break;
    if (n === 0) throw arpaError(file, i + 1, `'${line.slice(0, 40)}' before any \\N-grams: section`);
    const parts = line.split(/\s+/);
    const prob = Number(parts[0]);
    const hasBow = parts.length === n + 2;
    if (parts.length !== n + 1 && !hasBow)
      throw arpaError(file, i + 1, `expected ${n} token(s) after the probability`);
    const bow = hasBow ? Number(parts[n + 1]) : 0;
    if (!Number.isFinite(prob) || !Number.isFinite(bow))
      throw arpaError(file, i + 1, 'a probability is not a number');
    grams.set(parts.slice(1, n + 1).join(' '), [prob, bow]);
    seen++;
  }
  if (n > 0 && seen !== declared.get(n))
    throw arpaError(file, i + 1, `${seen} ${n}-grams, ${declared.get(n)} declared`);
  return new BackoffLm({ order, grams });
}
