import { splitTopLevel } from './split.ts';

/**
 * Ratios as answers: `11:21`, `2:3:4`, and a ratio of named quantities in front of one
 * (`V_1:V_2=11:21`, `AB:BC = 1:2`: the names are a label). Only ratios of constants are read —
 * a colon between letters is notation we do not guess at (`\{x : x > 0\}`).
 */

/** A quantity's name in a ratio label: `V_1`, `AB`, `r_{\text{big}}` is not (one to three letters, a subscript). */
const NAME = String.raw`[A-Za-z]{1,3}(?:_\{?\w+\}?)?`;
const RATIO_LABEL = new RegExp(String.raw`^${NAME}(?:\s*:\s*${NAME})+\s*=\s*([^=<>]+)$`);

/** What letters a part may hold and still be a constant (`\frac`, `\sqrt`, `\pi`…). */
const CONSTANT_COMMANDS = /\\(?:frac|sqrt|pi|cdot|times|left|right)(?![a-zA-Z])/g;
const isConstantText = (t: string) => t !== '' && !/[A-Za-z]/.test(t.replace(CONSTANT_COMMANDS, ''));

/** `V_1:V_2=11:21` → `11:21`; the text unchanged when it is not a labelled ratio. */
export function unlabelledRatio(text: string): string {
  if (!text.includes(':')) return text;
  const m = RATIO_LABEL.exec(text);
  return m && ratioParts(m[1]!.trim()) !== null ? m[1]!.trim() : text;
}

/** The parts of a ratio of constants (at least two), or null when the text is not one. */
export function ratioParts(text: string): string[] | null {
  if (!text.includes(':')) return null;
  const parts = splitTopLevel(text, ':');
  if (parts.length < 2 || !parts.every(isConstantText)) return null;
  return parts;
}
