// The operators a text-only chain can hold (those whose definition says `textOnly: true`), imported
// one by one: a worker running such a chain loads these (~0.2 s of CPU) instead of every built-in
// operator with the LLM, embedding and tokenizer ones (~0.75 s), once per worker start. A new
// text-only operator is added here too; tests/operators/capabilities.test.ts fails until it is.
import { Registry } from '../core/registry.ts';
import type { Task } from '../core/task.ts';
import type { OperatorDefinition } from '../operators/operator.ts';
import { alnumRatioFilterOp } from '../operators/task/alnum-ratio-filter.ts';
import { charRepetitionFilterOp } from '../operators/task/char-repetition-filter.ts';
import { chineseConvertOp } from '../operators/task/chinese-convert.ts';
import { expandLatexMacrosOp } from '../operators/task/expand-latex-macros.ts';
import { fixMojibakeOp } from '../operators/task/fix-mojibake.ts';
import { flaggedWordsFilterOp } from '../operators/task/flagged-words-filter.ts';
import { lengthFilterOp } from '../operators/task/length-filter.ts';
import { lineLengthFilterOp } from '../operators/task/line-length-filter.ts';
import { normalizePunctuationOp } from '../operators/task/normalize-punctuation.ts';
import { normalizeUnicodeOp } from '../operators/task/normalize-unicode.ts';
import { normalizeWhitespaceOp } from '../operators/task/normalize-whitespace.ts';
import { removeBibliographyOp } from '../operators/task/remove-bibliography.ts';
import { removeCopyrightHeadersOp } from '../operators/task/remove-copyright-headers.ts';
import { removeIpAddressesOp } from '../operators/task/remove-ip-addresses.ts';
import { removeLatexCommentsOp } from '../operators/task/remove-latex-comments.ts';
import { removeLatexHeaderOp } from '../operators/task/remove-latex-header.ts';
import { removeLongWordsOp } from '../operators/task/remove-long-words.ts';
import { removeRepeatSentencesOp } from '../operators/task/remove-repeat-sentences.ts';
import { removeTableTextOp } from '../operators/task/remove-table-text.ts';
import { removeUrlsEmailsOp } from '../operators/task/remove-urls-emails.ts';
import { removeWordsWithSubstringsOp } from '../operators/task/remove-words-with-substrings.ts';
import { replaceContentOp } from '../operators/task/replace-content.ts';
import { specialCharRatioFilterOp } from '../operators/task/special-char-ratio-filter.ts';
import { stopwordsFilterOp } from '../operators/task/stopwords-filter.ts';
import { stripHtmlOp } from '../operators/task/strip-html.ts';
import { wordRepetitionFilterOp } from '../operators/task/word-repetition-filter.ts';

const TEXT_ONLY_DEFINITIONS = [
  alnumRatioFilterOp,
  charRepetitionFilterOp,
  chineseConvertOp,
  expandLatexMacrosOp,
  fixMojibakeOp,
  flaggedWordsFilterOp,
  lengthFilterOp,
  lineLengthFilterOp,
  normalizePunctuationOp,
  normalizeUnicodeOp,
  normalizeWhitespaceOp,
  removeCopyrightHeadersOp,
  removeBibliographyOp,
  removeIpAddressesOp,
  removeLatexCommentsOp,
  removeLatexHeaderOp,
  removeLongWordsOp,
  removeRepeatSentencesOp,
  removeUrlsEmailsOp,
  removeTableTextOp,
  removeWordsWithSubstringsOp,
  replaceContentOp,
  specialCharRatioFilterOp,
  stopwordsFilterOp,
  stripHtmlOp,
  wordRepetitionFilterOp,
];

/** A registry of the text-only operators: the same definitions as the built-in registry's. */
export function textOnlyRegistry(): Registry<OperatorDefinition<Task, unknown>> {
  const reg = new Registry<OperatorDefinition<Task, unknown>>('task operator');
  for (const def of TEXT_ONLY_DEFINITIONS) reg.register(def as unknown as OperatorDefinition<Task, unknown>);
  return reg;
}
