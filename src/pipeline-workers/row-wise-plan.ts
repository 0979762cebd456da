import type { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import type { StepSpec } from '../operators/graph-spec.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { taskOperatorRegistry } from '../operators/registries.ts';

/**
 * Built-in task operators whose output for a row depends on that row and their params only: no
 * seeded stream, no state across rows or batches, no `flush`, no injected tokenizer or model. Any
 * batch of them can run on any thread, in any order, and give the same rows: that is what lets
 * workers run them without changing a run's output. Dedups, augmenters, LLM/embedding and
 * tokenizer operators, and user modules, are not here and run on the main thread.
 */
export const ROW_WISE_OPERATORS: ReadonlySet<string> = new Set([
  'alnum_ratio_filter',
  'char_repetition_filter',
  'chat_template',
  'chunk_text',
  'extract_answer',
  'fix_mojibake',
  'flagged_words_filter',
  'language_id_filter',
  'length_filter',
  'line_length_filter',
  'map_fields',
  'normalize_punctuation',
  'normalize_unicode',
  'normalize_whitespace',
  'remove_copyright_headers',
  'remove_ip_addresses',
  'remove_long_words',
  'remove_repeat_sentences',
  'remove_urls_emails',
  'replace_content',
  'require_answer',
  'sentence_split',
  'special_char_ratio_filter',
  'stopwords_filter',
  'strip_html',
  'word_repetition_filter',
]);

/**
 * Row-wise operators that read and write a task's texts only (prompt, messages, answer, through
 * text-fields.ts): a chain of these runs in a worker on the texts alone (text-job.ts).
 */
export const TEXT_ONLY_OPERATORS: ReadonlySet<string> = new Set([
  'alnum_ratio_filter',
  'char_repetition_filter',
  'fix_mojibake',
  'flagged_words_filter',
  'length_filter',
  'line_length_filter',
  'normalize_punctuation',
  'normalize_unicode',
  'normalize_whitespace',
  'remove_copyright_headers',
  'remove_ip_addresses',
  'remove_long_words',
  'remove_repeat_sentences',
  'remove_urls_emails',
  'replace_content',
  'special_char_ratio_filter',
  'stopwords_filter',
  'strip_html',
  'word_repetition_filter',
]);

/** How a chain splits between workers and the main thread. */
export interface RowWisePlan {
  /** The leading steps that run in workers (each batch on one worker). */
  workerSteps: StepSpec[];
  /** Params of the first top-level near_dedup after them: workers compute its MinHash signatures. */
  nearDedupParams: Record<string, unknown> | null;
  /** Params of the first top-level exact_dedup after them: workers compute its key hashes. */
  exactDedupParams: Record<string, unknown> | null;
  /** Why the rest runs on the main thread (shown as a run warning when workers start). */
  notes: string[];
  /** Every worker step is text-only: workers get the tasks' texts, not whole records. */
  textOnly: boolean;
}

/**
 * The longest prefix of `operators` made of built-in row-wise operators (looked up in `registry`,
 * which must hold the same definition as the built-in one: a re-registered name is the user's and
 * stays on the main thread). The steps after it run on the main thread, in order.
 */
export function planRowWise(
  operators: readonly StepSpec[],
  registry: Registry<OperatorDefinition<Task, unknown>>,
): RowWisePlan {
  const builtIn = taskOperatorRegistry();
  const isBuiltIn = (name: string) => registry.has(name) && registry.get(name) === builtIn.get(name);
  let k = 0;
  for (; k < operators.length; k++) {
    const spec = operators[k]!;
    if (!('op' in spec) || !ROW_WISE_OPERATORS.has(spec.op) || !isBuiltIn(spec.op)) break;
    // A step that loads a model tokenizer (Data-Juicer's tokenization: true) stays on the main thread.
    if (spec.params !== undefined && 'tokenizer' in spec.params) break;
  }
  const notes: string[] = [];
  const stop = operators[k];
  if (stop && 'module' in stop)
    notes.push(
      `workers: step ${k + 1} (module ${stop.module}) and the steps after it run on the main thread: only built-in row-wise operators run in workers`,
    );
  const firstAfter = (name: string) => {
    if (!isBuiltIn(name)) return null;
    for (let i = k; i < operators.length; i++) {
      const spec = operators[i]!;
      if ('op' in spec && spec.op === name) return spec.params ?? {};
    }
    return null;
  };
  return {
    workerSteps: operators.slice(0, k),
    nearDedupParams: firstAfter('near_dedup'),
    exactDedupParams: firstAfter('exact_dedup'),
    notes,
    textOnly: operators.slice(0, k).every((spec) => 'op' in spec && TEXT_ONLY_OPERATORS.has(spec.op)),
  };
}
