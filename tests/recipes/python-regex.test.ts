import { describe, expect, it } from 'vitest';
import { pythonRegexToJs } from '../../src/recipes/python-regex.ts';

/** Run a converted pattern as simhash_dedup's ignorePattern runs it: every match removed. */
function strip(pattern: string, text: string): string {
  const js = pythonRegexToJs(pattern);
  if (!js.ok) throw new Error(js.why);
  return text.replace(new RegExp(js.source, 'gu'), '');
}

describe("Python patterns of Data-Juicer's recipes as JavaScript", () => {
  it("keeps Data-Juicer's own ignore_patterns meaning what they mean in Python", () => {
    expect(strip('\\p{P}', 'Hello, 世界！「テスト」です。')).toBe('Hello 世界テストです');
    // Python's \w is Unicode-aware: Chinese and Japanese letters are word characters
    expect(strip('[^\\w]+', 'Hello, 世界! 123 ｶﾅ_x')).toBe('Hello世界123ｶﾅ_x');
    expect(strip('\\n\\n', 'a\n\nb\nc')).toBe('ab\nc');
  });

  it('spells out \\d, \\b and named groups; refuses what has no faithful spelling', () => {
    expect(strip('\\d', 'a1٣b')).toBe('ab');
    expect(strip('\\bcat\\b', 'concat cat 猫cat')).toBe('concat  猫cat');
    expect(strip('(?P<x>ab)(?P=x)', 'ababc')).toBe('c');
    expect(pythonRegexToJs('[\\W_]')).toEqual({
      ok: false,
      why: '\\W inside a character class has no Unicode-aware JavaScript spelling',
    });
    expect(pythonRegexToJs('(unclosed').ok).toBe(false);
    expect(pythonRegexToJs('[]a]')).toEqual({ ok: true, source: '[\\]a]' });
  });
});
