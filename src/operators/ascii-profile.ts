/**
 * What a row-wise step over a prompt may know of it without reading it again: the ASCII profile
 * (computed by operators/task/text-profile.ts, read by the text steps and by `Operator.profilePass`).
 * It lives here, beside the operator contract, so that contract needs nothing from one operator family.
 */
export interface AsciiProfile {
  /** The text described (compared by identity first, so a changed text is never misread). */
  readonly text: string;
  /** Whitespace-separated runs (whitespace: space and \t \n \v \f \r), as `countWords` counts them. */
  readonly words: number;
  /** [0-9A-Za-z]: `charClassCounts(text).alnum`. */
  readonly alnum: number;
  /** Space and \t–\r: `charClassCounts(text).space`. */
  readonly space: number;
  /** No `<` and no `&`: strip_html leaves the text as it is. */
  readonly noMarkup: boolean;
  /** No control character but \t \n \r, no DEL: normalize_unicode leaves it as it is (any options). */
  readonly printable: boolean;
  /**
   * One line, no control characters, no double space, no space at either end: normalize_whitespace
   * leaves it as it is in every `newlines` mode.
   */
  readonly whitespaceNormal: boolean;
  /**
   * exact_dedup's default key hash of the text (`dedupKeyHash(text)` with lowercase, punctuation
   * stripped, whitespace collapsed): its 53-bit key, or −1 when unknown. Computed in the same pass, so exact_dedup does not walk the text again.
   */
  readonly dedupKey: number;
  /** The 32-bit check beside `dedupKey`. */
  readonly dedupCheck: number;
}
