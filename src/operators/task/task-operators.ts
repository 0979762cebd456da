import type { Task } from '../../core/task.ts';
import type { OperatorDefinition } from '../operator.ts';
import { alnumRatioFilterOp } from './alnum-ratio-filter.ts';
import { charRepetitionFilterOp } from './char-repetition-filter.ts';
import { chatTemplateOp } from './chat-template.ts';
import { chineseConvertOp } from './chinese-convert.ts';
import { chunkTextOp } from './chunk-text.ts';
import { decontaminateOp } from './decontaminate.ts';
import { difficultyOp } from './difficulty.ts';
import { exactDedupOp } from './exact-dedup.ts';
import { expandLatexMacrosOp } from './expand-latex-macros.ts';
import { extractAnswerOp } from './extract-answer.ts';
import { fieldRangeFilterOp } from './field-range-filter.ts';
import { fieldValueFilterOp } from './field-value-filter.ts';
import { fixMojibakeOp } from './fix-mojibake.ts';
import { flaggedWordsFilterOp } from './flagged-words-filter.ts';
import { languageIdFilterOp } from './language-id-filter.ts';
import { lengthFilterOp } from './length-filter.ts';
import { lettersPerTokenFilterOp } from './letters-per-token-filter.ts';
import { lineLengthFilterOp } from './line-length-filter.ts';
import { mapFieldsOp } from './map-fields.ts';
import { nearDedupOp } from './near-dedup.ts';
import { normalizePunctuationOp } from './normalize-punctuation.ts';
import { normalizeUnicodeOp } from './normalize-unicode.ts';
import { normalizeWhitespaceOp } from './normalize-whitespace.ts';
import { numericAugmentOp } from './numeric-augment.ts';
import { removeBibliographyOp } from './remove-bibliography.ts';
import { removeCopyrightHeadersOp } from './remove-copyright-headers.ts';
import { removeIpAddressesOp } from './remove-ip-addresses.ts';
import { removeLatexCommentsOp } from './remove-latex-comments.ts';
import { removeLatexHeaderOp } from './remove-latex-header.ts';
import { removeLongWordsOp } from './remove-long-words.ts';
import { removeRepeatSentencesOp } from './remove-repeat-sentences.ts';
import { removeTableTextOp } from './remove-table-text.ts';
import { removeUrlsEmailsOp } from './remove-urls-emails.ts';
import { removeWordsWithSubstringsOp } from './remove-words-with-substrings.ts';
import { replaceContentOp } from './replace-content.ts';
import { requireAnswerOp } from './require-answer.ts';
import { sentenceSplitOp } from './sentence-split.ts';
import { simhashDedupOp } from './simhash-dedup.ts';
import { specialCharRatioFilterOp } from './special-char-ratio-filter.ts';
import { stopwordsFilterOp } from './stopwords-filter.ts';
import { stripHtmlOp } from './strip-html.ts';
import { suffixFilterOp } from './suffix-filter.ts';
import { tokenCountOp } from './token-count.ts';
import { tokenLengthFilterOp } from './token-length-filter.ts';
import { wordRepetitionFilterOp } from './word-repetition-filter.ts';

/** Every built-in task operator, for registering by name (YAML `op:` values). */
export const taskOperators: ReadonlyArray<OperatorDefinition<Task, unknown>> = [
  mapFieldsOp,
  normalizeWhitespaceOp,
  normalizeUnicodeOp,
  stripHtmlOp,
  removeUrlsEmailsOp,
  lengthFilterOp,
  specialCharRatioFilterOp,
  alnumRatioFilterOp,
  charRepetitionFilterOp,
  wordRepetitionFilterOp,
  flaggedWordsFilterOp,
  extractAnswerOp,
  requireAnswerOp,
  exactDedupOp,
  nearDedupOp,
  decontaminateOp,
  difficultyOp,
  numericAugmentOp,
  chatTemplateOp,
  tokenLengthFilterOp,
  tokenCountOp,
  // Issue #21: Data-Juicer's most-used cleaning operators (CJK-aware).
  fixMojibakeOp,
  normalizePunctuationOp,
  removeIpAddressesOp,
  removeCopyrightHeadersOp,
  replaceContentOp,
  removeLongWordsOp,
  removeRepeatSentencesOp,
  sentenceSplitOp,
  stopwordsFilterOp,
  lineLengthFilterOp,
  simhashDedupOp,
  chunkTextOp,
  lettersPerTokenFilterOp,
  languageIdFilterOp,
  // Issue #37: the rest of the operators of Data-Juicer's text recipes.
  removeWordsWithSubstringsOp,
  removeLatexHeaderOp,
  removeLatexCommentsOp,
  removeBibliographyOp,
  expandLatexMacrosOp,
  removeTableTextOp,
  suffixFilterOp,
  fieldValueFilterOp,
  fieldRangeFilterOp,
  chineseConvertOp,
];
