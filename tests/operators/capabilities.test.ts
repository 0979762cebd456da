import { describe, expect, it } from 'vitest';
import { Registry } from '../../src/core/registry.ts';
import type { OperatorDefinition } from '../../src/operators/operator.ts';
import {
  experienceOperatorRegistry,
  type TaskOperatorDefinition,
  taskOperatorRegistry,
} from '../../src/operators/registries.ts';
import { embeddingTaskOperators } from '../../src/operators/task/embedding-operators.ts';
import { llmTaskOperators } from '../../src/operators/task/llm-operators.ts';
import { planRowWise } from '../../src/pipeline-workers/row-wise-plan.ts';
import { textOnlyRegistry } from '../../src/pipeline-workers/text-only-registry.ts';

/** One line per operator: name, kind, and the capability flags its definition declares. */
const flags = (d: OperatorDefinition<unknown>) =>
  [d.rowWise ? 'row-wise' : '', d.textOnly ? 'text-only' : '', d.needsModel ? 'needs-model' : '']
    .filter(Boolean)
    .join(' ');
const table = (defs: readonly OperatorDefinition<unknown>[]) => defs.map((d) => [d.name, d.kind, flags(d)]);

describe('operator capabilities (flags on each definition)', () => {
  // The golden table: a flag added, dropped or forgotten on a new operator shows here, in review.
  // A row-wise operator left unflagged would run on the main thread: slower, with no other sign.
  it('every built-in task operator, with its flags', () => {
    expect(table(taskOperatorRegistry().all() as OperatorDefinition<unknown>[])).toEqual([
      ['alnum_ratio_filter', 'filter', 'row-wise text-only'],
      ['char_repetition_filter', 'filter', 'row-wise text-only'],
      ['chat_template', 'map', 'row-wise'],
      ['chinese_convert', 'map', 'row-wise text-only'],
      ['chunk_text', 'augment', 'row-wise'],
      ['decontaminate', 'dedup', ''],
      ['difficulty', 'map', ''],
      ['embed', 'map', 'needs-model'],
      ['exact_dedup', 'dedup', ''],
      ['expand_latex_macros', 'map', 'row-wise text-only'],
      ['extract_answer', 'map', 'row-wise'],
      ['field_range_filter', 'filter', 'row-wise'],
      ['field_value_filter', 'filter', 'row-wise'],
      ['fix_mojibake', 'map', 'row-wise text-only'],
      ['flagged_words_filter', 'filter', 'row-wise text-only'],
      ['language_id_filter', 'filter', 'row-wise'],
      ['length_filter', 'filter', 'row-wise text-only'],
      ['letters_per_token_filter', 'filter', ''],
      ['line_length_filter', 'filter', 'row-wise text-only'],
      ['llm_difficulty', 'map', 'needs-model'],
      ['llm_judge', 'filter', 'needs-model'],
      ['llm_rewrite', 'augment', 'needs-model'],
      ['map_fields', 'map', 'row-wise'],
      ['near_dedup', 'dedup', ''],
      ['normalize_punctuation', 'map', 'row-wise text-only'],
      ['normalize_unicode', 'map', 'row-wise text-only'],
      ['normalize_whitespace', 'map', 'row-wise text-only'],
      ['numeric_augment', 'augment', ''],
      ['perplexity_filter', 'filter', 'needs-model'],
      ['remove_bibliography', 'map', 'row-wise text-only'],
      ['remove_copyright_headers', 'map', 'row-wise text-only'],
      ['remove_ip_addresses', 'map', 'row-wise text-only'],
      ['remove_latex_comments', 'map', 'row-wise text-only'],
      ['remove_latex_header', 'map', 'row-wise text-only'],
      ['remove_long_words', 'map', 'row-wise text-only'],
      ['remove_repeat_sentences', 'map', 'row-wise text-only'],
      ['remove_table_text', 'map', 'row-wise text-only'],
      ['remove_urls_emails', 'map', 'row-wise text-only'],
      ['remove_words_with_substrings', 'map', 'row-wise text-only'],
      ['replace_content', 'map', 'row-wise text-only'],
      ['require_answer', 'filter', 'row-wise'],
      ['semantic_dedup', 'dedup', 'needs-model'],
      ['sentence_split', 'map', 'row-wise'],
      ['simhash_dedup', 'dedup', ''],
      ['special_char_ratio_filter', 'filter', 'row-wise text-only'],
      ['stopwords_filter', 'filter', 'row-wise text-only'],
      ['strip_html', 'map', 'row-wise text-only'],
      ['suffix_filter', 'filter', 'row-wise'],
      ['token_count', 'map', ''],
      ['token_length_filter', 'filter', ''],
      ['word_repetition_filter', 'filter', 'row-wise text-only'],
    ]);
  });

  it('every built-in experience operator (none needs a flag: they run in the run loop)', () => {
    expect(table(experienceOperatorRegistry().all() as OperatorDefinition<unknown>[])).toEqual([
      ['asymre', 'group', ''],
      ['dr_grpo', 'group', ''],
      ['duplicate_response_filter', 'group', ''],
      ['grpo', 'group', ''],
      ['invalid_reward', 'filter', ''],
      ['length_penalty', 'map', ''],
      ['mask_truncated', 'map', ''],
      ['multi_step_grpo', 'group', ''],
      ['negative_only', 'filter', ''],
      ['opmd', 'group', ''],
      ['pass_rate', 'map', ''],
      ['positive_only', 'filter', ''],
      ['rec', 'group', ''],
      ['reinforce', 'group', ''],
      ['reinforce_pp', 'group', ''],
      ['reinforce_pp_seq', 'group', ''],
      ['reward_shaping', 'map', ''],
      ['reward_std_filter', 'group', ''],
      ['reward_threshold', 'group', ''],
      ['rloo', 'group', ''],
      ['trajectory_advantage', 'group', ''],
      ['trajectory_filter', 'filter', ''],
    ]);
  });

  it('the flags agree with each other and with the lists that load or test operators', () => {
    const all = taskOperatorRegistry().all();
    for (const d of all) {
      if (d.textOnly) expect(d.rowWise, d.name).toBe(true);
      if (d.needsModel) expect(d.rowWise ?? false, d.name).toBe(false);
    }
    // The worker's light registry imports exactly the text-only operators.
    expect(textOnlyRegistry().names()).toEqual(all.filter((d) => d.textOnly).map((d) => d.name));
    // The operators kept out of the offline property tests are exactly those that need a model.
    expect([...llmTaskOperators, ...embeddingTaskOperators].map((d) => d.name).sort()).toEqual(
      all
        .filter((d) => d.needsModel && d.name !== 'perplexity_filter')
        .map((d) => d.name)
        .sort(),
    );
  });

  it('the flags decide where a step runs: row-wise steps in workers, a text-only chain on texts alone', () => {
    const registry = taskOperatorRegistry();
    const plan = planRowWise(
      [{ op: 'strip_html' }, { op: 'require_answer' }, { op: 'exact_dedup' }, { op: 'length_filter' }],
      registry,
    );
    expect(plan.workerSteps.map((s) => ('op' in s ? s.op : ''))).toEqual(['strip_html', 'require_answer']);
    expect(plan.textOnly).toBe(false);
    // Parsed, defaults filled: workers take them as they are.
    expect(plan.exactDedupParams).toEqual({
      field: 'prompt',
      unicode: 'NFKC',
      lowercase: true,
      stripPunctuation: true,
      whitespace: 'collapse',
      checkIds: true,
    });
    // A user's own definition under a built-in name stays on the main thread, flags or not.
    const own = new Registry<TaskOperatorDefinition>('task operator');
    for (const d of registry.all()) own.register(d.name === 'strip_html' ? { ...d } : d);
    expect(planRowWise([{ op: 'strip_html' }], own).workerSteps).toEqual([]);
  });
});
