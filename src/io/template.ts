import { ConfigError } from '../core/errors.ts';
import { columnsOf, compilePath, type FieldGetter, MISSING, RowMappingError } from './field-path.ts';
import { jsonSafe } from './jsonl-writer.ts';

/**
 * `"{question}\n{choices}"`: text with `{field}` placeholders (dotted paths reach nested fields;
 * `{{` and `}}` are literal braces). Parsed once; rendering is a join.
 */
export interface CompiledTemplate {
  readonly source: string;
  /** Field paths in order of appearance. */
  readonly fields: readonly string[];
  render(fields: Record<string, unknown>): string;
}

type Part = string | { path: string; get: FieldGetter };

/** Compile a template; syntax errors throw a ConfigError at `configPath`. */
export function compileTemplate(source: string, configPath: string): CompiledTemplate {
  const parts: Part[] = [];
  let text = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '{' && source[i + 1] === '{') {
      text += '{';
      i += 2;
    } else if (c === '}' && source[i + 1] === '}') {
      text += '}';
      i += 2;
    } else if (c === '{') {
      const close = source.indexOf('}', i + 1);
      const inner = close === -1 ? '' : source.slice(i + 1, close).trim();
      if (close === -1 || inner === '' || inner.includes('{')) {
        throw new ConfigError({
          path: configPath,
          message: `bad placeholder at character ${i + 1} of template ${JSON.stringify(source)}`,
          hint: "write {column} or {a.b}; use '{{' and '}}' for literal braces",
        });
      }
      if (text) parts.push(text);
      text = '';
      parts.push({ path: inner, get: compilePath(inner) });
      i = close + 1;
    } else if (c === '}') {
      throw new ConfigError({
        path: configPath,
        message: `unmatched '}' at character ${i + 1} of template ${JSON.stringify(source)}`,
        hint: "use '}}' for a literal brace",
      });
    } else {
      text += c;
      i++;
    }
  }
  if (text) parts.push(text);
  const fields = parts.filter((p) => typeof p !== 'string').map((p) => p.path);
  return {
    source,
    fields,
    render(row) {
      let out = '';
      for (const p of parts) {
        if (typeof p === 'string') out += p;
        else out += renderValue(p.get(row), p.path, row);
      }
      return out;
    },
  };
}

function renderItem(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v, jsonSafe);
  return String(v);
}

/** Strings as they are, numbers/booleans as text, arrays one item per line, objects as JSON. */
function renderValue(v: unknown, path: string, row: Record<string, unknown>): string {
  if (typeof v === 'string') return v;
  if (v === MISSING) throw new RowMappingError(`template field '${path}' is missing (${columnsOf(row)})`);
  if (v === null || v === undefined) throw new RowMappingError(`template field '${path}' is null`);
  if (Array.isArray(v)) return v.map(renderItem).join('\n');
  if (ArrayBuffer.isView(v) && !(v instanceof DataView))
    return Array.from(v as unknown as ArrayLike<unknown>, renderItem).join('\n');
  return renderItem(v);
}
