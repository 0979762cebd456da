import { UsageError } from '../core/usage-error.ts';

// The tokens of a `--where` expression (where-filter.ts parses them), and its one-line errors.

export interface Token {
  kind: 'word' | 'string' | 'number' | 'op' | 'lparen' | 'rparen' | 'comma' | 'end';
  text: string;
  /** 1-based character position in the expression. */
  pos: number;
}

export const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'IS', 'NULL', 'IN', 'LIKE', 'TRUE', 'FALSE']);
const COMPARISONS = new Set(['=', '!=', '<>', '<', '<=', '>', '>=']);

export function fail(message: string, pos: number, hint?: string): never {
  throw new UsageError(`--where: ${message} at ${pos}${hint ? ` (${hint})` : ''}`);
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    const pos = i + 1;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === "'") {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) fail('unterminated string', pos, "close it with '");
        if (text[i] === "'") {
          if (text[i + 1] === "'") {
            value += "'";
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i];
        i++;
      }
      tokens.push({ kind: 'string', text: value, pos });
    } else if (ch === '"') {
      fail('double quotes are not allowed', pos, "write strings in single quotes: taskset = 'gsm8k'");
    } else if (/[0-9]/.test(ch) || (ch === '-' && /[0-9.]/.test(text[i + 1] ?? ''))) {
      const m = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i))!;
      tokens.push({ kind: 'number', text: m[0], pos });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*/.exec(text.slice(i))!;
      tokens.push({ kind: 'word', text: m[0], pos });
      i += m[0].length;
    } else if ('=<>!'.includes(ch)) {
      const two = text.slice(i, i + 2);
      const op = COMPARISONS.has(two) ? two : ch;
      if (!COMPARISONS.has(op)) fail(`unknown operator '${op}'`, pos, 'use = != <> < <= > >=');
      tokens.push({ kind: 'op', text: op, pos });
      i += op.length;
    } else if (ch === '(' || ch === ')' || ch === ',') {
      tokens.push({ kind: ch === '(' ? 'lparen' : ch === ')' ? 'rparen' : 'comma', text: ch, pos });
      i++;
    } else {
      fail(`unexpected character '${ch}'`, pos);
    }
  }
  tokens.push({ kind: 'end', text: '', pos: text.length + 1 });
  return tokens;
}

export const isKeyword = (t: Token, kw: string) => t.kind === 'word' && t.text.toUpperCase() === kw;
export const describe = (t: Token) => (t.kind === 'end' ? 'end of expression' : `'${t.text}'`);
