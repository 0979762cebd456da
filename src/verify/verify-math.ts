import { parseLatex } from '@cortex-js/compute-engine';
import { type Answer, type AnswerForm, parseAnswer, Unparseable } from './answer-form.ts';
import { compareAnswers } from './compare.ts';
import { TooCostly } from './exact.ts';
import { type FoundBy, findAnswer } from './extract.ts';
import { DEFAULT_LIMITS, Deadline, LimitExceeded, nestingDepth, type VerifyLimits } from './limits.ts';
import { MACRO_DEFINITION, normalizeAnswer, type PercentMode } from './normalize.ts';
import { LruCache } from './verdict-cache.ts';

/**
 * `verifyMath(response, gold)`: is the response's final answer the gold's? Both texts go through
 * the same extraction and normalisation; the answers are parsed into their form (number,
 * expression, interval, set, tuple, matrix, relation, choice, text) and compared. A wrong answer
 * must never pass, so every doubt — an unparseable answer, a comparison the engine cannot settle,
 * a limit hit — is a 0 with its reason.
 */

export type VerdictReason =
  | 'equal'
  | 'not_equal'
  | 'unsure'
  | 'no_answer'
  | 'no_gold_answer'
  | 'unparseable'
  | 'timeout'
  | 'too_large'
  | 'too_costly';

export interface MathVerdict {
  correct: boolean;
  reason: VerdictReason;
  /** One line on why (what was unparseable, which limit…); '' when the reason says it all. */
  detail: string;
  extracted: string | null;
  extractedBy: FoundBy | null;
  expected: string | null;
  expectedBy: FoundBy | null;
  /** The gold answer's form, once parsed. */
  form: AnswerForm | null;
}

export interface VerifyOptions {
  /**
   * Numbers match when |a − b| ≤ tolerance × max(|a|, |b|). At the default 1e-6 (or tighter) a
   * decimal gold also bounds the gap below half a unit of its last digit (`123456.7` ≠ `123456.8`)
   * and an integer gold needs that integer; a looser tolerance asks to accept approximations and
   * is then the only rule.
   */
  tolerance?: number;
  /** `25\%` reads as 25 ('strip', the default) or 0.25 ('fraction'). */
  percent?: PercentMode;
  limits?: Partial<VerifyLimits>;
  /** Verdict cache; `null` turns caching off. Default: one shared cache of 10,000 verdicts. */
  cache?: LruCache<MathVerdict> | null;
}

/** The default relative tolerance; at it or below, the gold's stated digits bound the gap too. */
const DEFAULT_TOLERANCE = 1e-6;

const SHARED_CACHE = new LruCache<MathVerdict>(10_000);
/** Longer inputs are not cached: the key would cost more memory than the judgement costs time. */
const MAX_CACHED_KEY = 8_192;

function verdict(
  correct: boolean,
  reason: VerdictReason,
  detail: string,
  rest: Partial<Omit<MathVerdict, 'correct' | 'reason' | 'detail'>> = {},
): MathVerdict {
  return {
    correct,
    reason,
    detail,
    extracted: null,
    extractedBy: null,
    expected: null,
    expectedBy: null,
    form: null,
    ...rest,
  };
}

/** A text's answer, normalised and parsed, or the reason it has none. */
function readSide(text: string, who: 'response' | 'gold', limits: VerifyLimits, percent: PercentMode) {
  if (text.length > limits.maxInputChars)
    throw new LimitExceeded(
      'too_large',
      `${who} has ${text.length} characters (limit ${limits.maxInputChars})`,
    );
  if (MACRO_DEFINITION.test(text))
    throw new Unparseable(`${who} defines or loads TeX macros (${MACRO_DEFINITION.exec(text)![0]})`);
  const found = findAnswer(text);
  if (found === null) return null;
  if ('failure' in found) throw new Unparseable(`${who} has an unclosed \\boxed{`);
  if (found.answer.length > limits.maxAnswerChars)
    throw new LimitExceeded(
      'too_large',
      `${who} answer has ${found.answer.length} characters (limit ${limits.maxAnswerChars})`,
    );
  const depth = nestingDepth(found.answer, limits.maxDepth);
  if (depth > limits.maxDepth)
    throw new LimitExceeded('too_large', `${who} answer nests deeper than ${limits.maxDepth}`);
  return { found, normalized: normalizeAnswer(found.answer, percent) };
}

/** `2,74` read as a list of two, when the other side is one number: the unambiguous decimal comma. */
function decimalComma(a: Answer): Answer | null {
  if (a.form !== 'list' || !/^-?\d+,(?:\d{1,2}|\d{4,})$/.test(a.text)) return null;
  return parseAnswer(a.text.replace(',', '.'));
}

/** A leading choice letter of a response (`(B) 42`, `B.`), when the gold is a choice. */
function choiceOf(normalized: string): Answer | null {
  const m = /^\(?([A-J])(?:\)|\.|:|\s|$)/.exec(normalized);
  return m ? { form: 'choice', letter: m[1]! } : null;
}

let parserWarm = false;
/** The parser's first call compiles its dictionaries (~150 ms): done once, outside any time limit. */
function warmParser(): void {
  if (parserWarm) return;
  parserWarm = true;
  parseLatex('\\frac{1}{2}x^2 + \\sqrt{3} \\le [0, 1)');
}

/** The response's answer when it normalises to exactly `goldNormalized`, else null. */
function sameText(response: string, goldNormalized: string, limits: VerifyLimits, percent: PercentMode) {
  try {
    const side = readSide(response, 'response', limits, percent);
    return side?.normalized === goldNormalized ? side.found : null;
  } catch {
    return null;
  }
}

function judge(response: string, gold: string, opts: VerifyOptions): MathVerdict {
  warmParser();
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const percent = opts.percent ?? 'strip';
  const deadline = new Deadline(limits.timeLimitMs);
  let goldSide: ReturnType<typeof readSide>;
  try {
    goldSide = readSide(gold, 'gold', limits, percent);
  } catch (err) {
    if (err instanceof LimitExceeded || err instanceof Unparseable)
      return verdict(false, 'no_gold_answer', `gold: ${err.message}`);
    throw err;
  }
  if (goldSide === null) return verdict(false, 'no_gold_answer', 'no answer found in the gold text');
  const expected = { expected: goldSide.found.answer, expectedBy: goldSide.found.by };
  let goldAnswer: Answer;
  try {
    goldAnswer = parseAnswer(goldSide.normalized);
  } catch (err) {
    // A text always equals itself, even one that cannot be compared to anything else.
    const same = sameText(response, goldSide.normalized, limits, percent);
    if (same)
      return verdict(true, 'equal', '', { ...expected, extracted: same.answer, extractedBy: same.by });
    return verdict(
      false,
      'no_gold_answer',
      `gold answer is unparseable: ${(err as Error).message}`,
      expected,
    );
  }
  const base = { ...expected, form: goldAnswer.form };
  let side: ReturnType<typeof readSide>;
  try {
    side = readSide(response, 'response', limits, percent);
  } catch (err) {
    if (err instanceof LimitExceeded) return verdict(false, err.reason, err.message, base);
    if (err instanceof Unparseable) return verdict(false, 'unparseable', err.message, base);
    throw err;
  }
  try {
    deadline.check('extraction');
  } catch (err) {
    return verdict(false, 'timeout', (err as Error).message, base);
  }
  if (side === null) return verdict(false, 'no_answer', 'no answer found in the response', base);
  const got = { ...base, extracted: side.found.answer, extractedBy: side.found.by };
  // The gold's own text (once normalised) is its own answer, whatever the comparison could do with it.
  if (side.normalized === goldSide.normalized) return verdict(true, 'equal', '', got);
  try {
    let answer = goldAnswer.form === 'choice' ? choiceOf(side.normalized) : null;
    answer ??= parseAnswer(side.normalized);
    let g = goldAnswer;
    if (g.form === 'scalar') answer = decimalComma(answer) ?? answer;
    if (answer.form === 'scalar') g = decimalComma(g) ?? g;
    const r = compareAnswers(g, answer, {
      tolerance: opts.tolerance ?? DEFAULT_TOLERANCE,
      goldDigits: (opts.tolerance ?? DEFAULT_TOLERANCE) <= DEFAULT_TOLERANCE,
      deadline,
    });
    deadline.check('verdict');
    if (r === 'equal') return verdict(true, 'equal', '', got);
    if (r === 'different') return verdict(false, 'not_equal', `${answer.form} vs ${g.form}`, got);
    return verdict(false, 'unsure', 'the comparison could not be settled', got);
  } catch (err) {
    if (err instanceof LimitExceeded) return verdict(false, err.reason, err.message, got);
    if (err instanceof Unparseable) return verdict(false, 'unparseable', err.message, got);
    if (err instanceof TooCostly) return verdict(false, 'too_costly', err.message, got);
    if (err instanceof RangeError)
      return verdict(false, 'too_large', `engine gave up: ${err.message.slice(0, 80)}`, got);
    return verdict(false, 'unparseable', `engine error: ${(err as Error).message.slice(0, 80)}`, got);
  }
}

/** Judge `response` against `gold`. Never throws on any input; verdicts are cached. */
export function verifyMath(response: string, gold: string, opts: VerifyOptions = {}): MathVerdict {
  const cache = opts.cache === undefined ? SHARED_CACHE : opts.cache;
  const key =
    cache && response.length + gold.length < MAX_CACHED_KEY
      ? `${opts.tolerance ?? ''}|${opts.percent ?? ''}|${JSON.stringify(opts.limits ?? {})}|${gold}\u0000${response}`
      : null;
  if (key !== null) {
    const hit = cache!.get(key);
    if (hit) return hit;
  }
  const v = judge(response, gold, opts);
  // A timeout depends on the machine's load: do not remember it.
  if (key !== null && v.reason !== 'timeout') cache!.set(key, v);
  return v;
}
