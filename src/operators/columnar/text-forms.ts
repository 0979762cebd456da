/**
 * Column-wise forms of the text filters and of whitespace normalisation (see form.ts). Each is
 * declared on its operator's definition (`columnar`); the verdicts are the operators' own
 * functions, so a dropped row's reason is the same text on both paths.
 */
import type { NewlineMode } from '../task/normalize-whitespace.ts';
import type { TextField } from '../task/text-fields.ts';
import type { ColumnarFilter, ColumnarMap } from './form.ts';
import {
  alnumRanges,
  asciiLowerSql,
  letterDigitRanges,
  nonAsciiCasedRanges,
  re2Class,
  spaceRanges,
  sqlString,
  unspacedRanges,
} from './unicode-classes.ts';

const stripClass = (ranges: ReadonlyArray<readonly [number, number]>) => sqlString(re2Class(ranges, true));

/** Code points of `col` (DuckDB's `length` counts code points: bench/engine/unicode-agreement.ts). */
export const charsSql = (col: string) => `length(${col})`;
/** How many code points of `col` fall in `ranges`. */
export const countInSql = (col: string, ranges: ReadonlyArray<readonly [number, number]>) =>
  `length(regexp_replace(${col}, ${stripClass(ranges)}, '', 'g'))`;
/** Words as text-stats.ts counts them outside unspaced scripts: maximal runs of non-space. */
export const wordsSql = (col: string) =>
  `len(regexp_extract_all(${col}, ${sqlString(`${re2Class(spaceRanges(), true)}+`)}))`;

/** A filter over character-class counts (length, special-char and alnum ratios). */
export function countsFilter(
  field: TextField,
  counts: Array<'chars' | 'words' | 'alnum' | 'space'>,
  verdict: (values: readonly number[]) => string | null,
): ColumnarFilter {
  const sqlOf = {
    chars: charsSql,
    words: wordsSql,
    alnum: (c: string) => countInSql(c, alnumRanges()),
    space: (c: string) => countInSql(c, spaceRanges()),
  };
  return {
    kind: 'filter',
    field,
    // Word counts inside Han, kana, Thai… runs come from ICU's segmenter, which SQL has not.
    rowWiseChars: counts.includes('words') ? unspacedRanges() : null,
    values: (col) => counts.map((k) => sqlOf[k](col)),
    verdict,
  };
}

/**
 * text-units.ts's `wordTokens` n-gram repetition as counts: [repeated n-grams, all n-grams].
 * Words: ASCII-lower-cased (rows with other cased letters stay row-wise), split on whitespace,
 * letters/digits kept at their ends, empty ones dropped; unspaced scripts stay row-wise. The
 * n-grams seen more than once are the ones equal to a neighbour once sorted.
 */
export function wordRepetitionForm(
  field: TextField,
  n: number,
  verdict: (values: readonly number[]) => string | null,
): ColumnarFilter {
  const edge = re2Class(letterDigitRanges(), true);
  const words = (col: string) =>
    `list_filter(list_transform(regexp_split_to_array(${asciiLowerSql(col)}, ${sqlString(`${re2Class(spaceRanges())}+`)}), ` +
    `w -> regexp_replace(w, ${sqlString(`^${edge}+|${edge}+$`)}, '', 'g')), w -> w <> '')`;
  const grams = `list_transform(range(1, len(ws) + ${2 - n}), i -> array_to_string(ws[i:i + ${n - 1}], ' '))`;
  const repeated = `len(list_filter(s, (x, i) -> x = s[i - 1] OR x = s[i + 1]))`;
  return {
    kind: 'filter',
    field,
    rowWiseChars: [...unspacedRanges(), ...nonAsciiCasedRanges()],
    values: (col) => [
      `list_transform([list_sort(list_transform([${words(col)}], ws -> ${grams})[1])], s -> ${repeated})[1]`,
      `greatest(len(${words(col)}) - ${n - 1}, 0)`,
    ],
    verdict,
  };
}

// normalize-whitespace.ts, step by step (its `normalizeWhitespaceFull`).
const ZERO_WIDTH = sqlString('[\\x{200b}\\x{2060}\\x{fffc}]');
const LINE_BREAK = sqlString('\\r\\n|[\\r\\x{85}\\x{2028}\\x{2029}]');
const HSPACE = sqlString('[\\t\\x{b}\\x{c} \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{202f}\\x{205f}\\x{3000}]+');
/** Stands for a paragraph break while single line breaks become spaces (rows holding it stay row-wise). */
const PARAGRAPH_MARK = 0xf8ff;

/**
 * Whitespace normalisation in SQL. Row-wise: zero-width (non-)joiners (whether one is stray
 * depends on its neighbours: a look-around RE2 has not), U+FEFF (JS `trim` removes it at line
 * ends, where it is not a space otherwise), and the paragraph mark above.
 */
export function whitespaceForm(field: 'prompt' | 'answer', newlines: NewlineMode): ColumnarMap {
  const lines = (col: string) =>
    `trim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(${col}, ${ZERO_WIDTH}, '', 'g'), ` +
    `${LINE_BREAK}, chr(10), 'g'), ${HSPACE}, ' ', 'g'), ' ?\\n ?', chr(10), 'g'), ' ')`;
  const sql = (col: string) => {
    const trimmed = lines(col);
    if (newlines === 'collapse') return `trim(regexp_replace(${trimmed}, '\\n+', ' ', 'g'), ' ')`;
    const kept = `regexp_replace(trim(${trimmed}, chr(10)), '\\n\\n+', chr(10) || chr(10), 'g')`;
    if (newlines === 'keep') return kept;
    return `replace(replace(regexp_replace(trim(${trimmed}, chr(10)), '\\n\\n+', chr(${PARAGRAPH_MARK}), 'g'), chr(10), ' '), chr(${PARAGRAPH_MARK}), chr(10) || chr(10))`;
  };
  return {
    kind: 'map',
    field,
    rowWiseChars: [
      [0x200c, 0x200d],
      [0xfeff, 0xfeff],
      [PARAGRAPH_MARK, PARAGRAPH_MARK],
    ],
    sql,
  };
}
