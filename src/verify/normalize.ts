/**
 * Rewriting an extracted answer into plain LaTeX the parser reads, dropping everything that never
 * changes a value: delimiters, `\left`/`\right`, spacing macros, `^\circ`, `\%`, currency, units
 * and `\text{}` wrappers; Unicode math becomes its LaTeX command. Pure string work, linear time.
 */

export type PercentMode = 'strip' | 'fraction';

const UNICODE: ReadonlyArray<readonly [RegExp, string]> = [
  [/π/g, '\\pi '],
  [/√/g, '\\sqrt'],
  [/≤|⩽/g, '\\le '],
  [/≥|⩾/g, '\\ge '],
  [/≠/g, '\\ne '],
  [/∞/g, '\\infty '],
  [/∪/g, '\\cup '],
  [/∩/g, '\\cap '],
  [/[−–]/g, '-'],
  [/×/g, '\\times '],
  [/÷/g, '\\div '],
  [/[·⋅]/g, '\\cdot '],
  [/°/g, '^\\circ'],
  [/∈/g, '\\in '],
  [/∅/g, '\\emptyset '],
  [/±/g, '\\pm '],
  [/∓/g, '\\mp '],
  [/[\u00a0\u2009\u202f]/g, ' '],
];

/** TeX that defines or loads macros: never expanded, the answer is refused. */
export const MACRO_DEFINITION =
  /\\(?:def|edef|gdef|xdef|let|input|include|newcommand|renewcommand|providecommand|usepackage|catcode|csname|expandafter)(?![a-zA-Z])/;

/** Text-mode wrappers whose content is the answer itself. */
const TEXT_WRAPPER =
  /\\(?:text|textnormal|textrm|textbf|textit|mbox|mathrm|mathbf|mathit|mathsf|mathtt|boldsymbol)\s*\{([^{}]*)\}/g;

/** A unit written in text after a number (`125\text{ miles}`, `5\mbox{ cm}^2`, `100\pi \text{ cm}^3`). */
const TEXT_UNIT =
  /([\d}).]|\\pi)\s*\\(?:text|textnormal|textrm|mbox|mathrm)\s*\{\s*[A-Za-z][A-Za-z ./]*\}(?:\^\{?\d\}?)?/g;

const INEQUALITY = /[<>]|\\(?:le|ge|leq|geq|lt|gt|leqslant|geqslant)(?![a-zA-Z])/;

export function normalizeAnswer(raw: string, percent: PercentMode = 'strip'): string {
  let t = raw;
  for (const [re, to] of UNICODE) t = t.replace(re, to);
  t = t.replace(/\\displaystyle|\\textstyle/g, '');
  // MATH's thousands separator: `11,\! 111,\! 100` is one number.
  t = t.replace(/(\d),\\!\s*(?=\d{3}(?!\d))/g, '$1');
  // Parts joined by words: `6 \text{ and } 8`, `(11,7) \text{ or } (7,11)` are lists.
  // Between inequalities "and" is their intersection, not a list: it stays a conjunction.
  const joiner = INEQUALITY.test(t) ? (word: string) => (word === 'and' ? ' \\land ' : ', ') : () => ', ';
  t = t.replace(/\s*\\(?:text|textnormal|mbox|mathrm)\s*\{\s*(and|or)\s*\}\s*/g, (_, w: string) => joiner(w));
  t = t.replace(/(?<=[\d)\]}])\s+(and|or)\s+(?=[-\d([\\])/g, (_, w: string) => joiner(w));
  // `(0;0;0)`: a semicolon list when no comma is used.
  if (!t.includes(',')) t = t.replace(/;/g, ',');
  t = t.replace(/^\s*(?:\$\$?|\\\(|\\\[)/, '').replace(/(?:\$\$?|\\\)|\\\])\s*$/, '');
  t = t.replace(/\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big|biggl|biggr|bigg|Bigg)(?![a-zA-Z])\s*\.?/g, '');
  t = t.replace(/(?<!\\)\\(?:q?quad|[,;:! ]|thinspace|medspace|thickspace|enspace)/g, ' ').replace(/~/g, ' ');
  t = t.replace(/\\[tdc]frac/g, '\\frac');
  t = t.replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|\\circ|\\degree/g, '');
  t = t.replace(/\{,\}/g, ',');
  t = t.replace(/\\?\$|€|£|¥/g, '');
  t = percent === 'strip' ? t.replace(/\\?%/g, '') : t.replace(/\\?%/g, '/100');
  t = t.replace(TEXT_UNIT, '$1');
  t = t.replace(TEXT_WRAPPER, '$1').replace(TEXT_WRAPPER, '$1');
  t = t.replace(/\\lt(?![a-zA-Z])/g, '<').replace(/\\gt(?![a-zA-Z])/g, '>');
  t = t.replace(/\*\*/g, '');
  t = t.replace(/\s+/g, ' ').trim();
  t = t.replace(/[.。]+$/, '').trim();
  // `\left(\begin{array}…\end{array}\right)` or `\left[…\right]`: the brackets only draw the matrix.
  t = t.replace(
    /^(?:\(\s*(\\begin\{array\}[\s\S]*\\end\{array\})\s*\)|\[\s*(\\begin\{array\}[\s\S]*\\end\{array\})\s*\])$/,
    '$1$2',
  );
  t = stripVariablePrefix(t);
  // The real line by its name: `\mathbb{R}`, `ℝ` (as a whole answer) is (−∞, ∞).
  if (/^(?:\\mathbb\s*\{?\s*R\s*\}?|ℝ)$/.test(t)) t = '(-\\infty, \\infty)';
  t = joinThousands(t);
  t = stripTrailingWords(t);
  return t;
}

/** `x \in [1, 2]` → `[1, 2]`: membership of a named variable is the set itself. */
function stripVariablePrefix(t: string): string {
  const m = /^[A-Za-z](?:_\{?\w+\}?)?\s*\\in\s+(.+)$/.exec(t);
  return m ? m[1]!.trim() : t;
}

/** `1 000 000` and `1\,000` (spaces already single) → `1000000`, only in whole groups of three. */
function joinThousands(t: string): string {
  return t.replace(/(?<![\d.])\d{1,3}(?: \d{3})+(?![\d])/g, (m) => m.replace(/ /g, ''));
}

/** `125 miles`, `5 cm^2`, `18 dollars per hour` → the number: trailing words after a value are units. */
function stripTrailingWords(t: string): string {
  const m = /^(.*?[\d})\]])\s+(?:[A-Za-z]{2,}\.?(?:\^\{?\d\}?)?\s*)+$/.exec(t);
  if (!m) return t;
  const head = m[1]!.trim();
  return /[A-Za-z]{2,}/.test(head.replace(/\\[a-zA-Z]+/g, '')) ? t : head;
}
