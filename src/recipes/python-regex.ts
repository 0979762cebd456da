/**
 * A Python `regex`-module pattern as the JavaScript pattern (Unicode mode) that matches the same
 * text, for the recipe parameters Data-Juicer compiles with Python (`ignore_pattern`). Python's
 * `\w`, `\d` and `\b` are Unicode-aware where JavaScript's are ASCII-only, so they are spelled out;
 * what cannot be carried over faithfully is refused with the reason.
 */

const WORD_CLASS = '\\p{L}\\p{N}\\p{M}_';

export type PythonRegexResult = { ok: true; source: string } | { ok: false; why: string };

export function pythonRegexToJs(pattern: string): PythonRegexResult {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const n = pattern[i + 1];
      if (n === undefined) return { ok: false, why: 'ends with a lone backslash' };
      i++;
      if (n === 'w') out += inClass ? WORD_CLASS : `[${WORD_CLASS}]`;
      else if (n === 'W') {
        if (inClass)
          return { ok: false, why: '\\W inside a character class has no Unicode-aware JavaScript spelling' };
        out += `[^${WORD_CLASS}]`;
      } else if (n === 'd') out += '\\p{Nd}';
      else if (n === 'D') {
        if (inClass)
          return { ok: false, why: '\\D inside a character class has no Unicode-aware JavaScript spelling' };
        out += '\\P{Nd}';
      } else if (n === 'b' || n === 'B') {
        if (inClass) out += '\\x08';
        else if (n === 'b')
          out += `(?:(?<=[${WORD_CLASS}])(?![${WORD_CLASS}])|(?<![${WORD_CLASS}])(?=[${WORD_CLASS}]))`;
        else out += `(?:(?<=[${WORD_CLASS}])(?=[${WORD_CLASS}])|(?<![${WORD_CLASS}])(?![${WORD_CLASS}]))`;
      } else if (n === 'A') out += '^';
      else if (n === 'Z') out += '$';
      else out += `\\${n}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      // A `]` right after `[` or `[^` is a literal in Python.
      if (pattern[i + 1] === '^') {
        out += '^';
        i++;
      }
      if (pattern[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?' && pattern[i + 2] === 'P') {
      // (?P<name>…) → (?<name>…); (?P=name) → \k<name>
      if (pattern[i + 3] === '<') {
        out += '(?<';
        i += 3;
        continue;
      }
      if (pattern[i + 3] === '=') {
        const end = pattern.indexOf(')', i);
        if (end < 0) return { ok: false, why: 'an unterminated (?P=name)' };
        out += `\\k<${pattern.slice(i + 4, end)}>`;
        i = end;
        continue;
      }
    }
    out += c;
  }
  try {
    new RegExp(out, 'gu');
  } catch (err) {
    return { ok: false, why: `not a pattern JavaScript can run (${(err as Error).message})` };
  }
  return { ok: true, source: out };
}
