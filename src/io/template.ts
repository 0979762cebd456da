import { ConfigError } from '../core/errors.ts';
import { columnsOf, compilePath, type FieldGetter, MISSING, RowMappingError } from './field-path.ts';
import { jsonSafe } from './jsonl-writer.ts';

/**
 * `"{question}\n{choices}"`: text with `{field}` placeholders (dotted paths reach nested fields;
 * `{hint?}` is optional: a missing or null field renders as nothing; `{{` and `}}` are literal
 * braces). Parsed once; rendering is a join.
 */
export interface CompiledTemplate {
  readonly source: string;
  /** Field paths in order of appearance (without the `?` of optional ones). */
  readonly fields: readonly string[];
  /** The fields every row must have (the placeholders not marked `?`). */
  readonly requiredFields: readonly string[];
  render(fields: Record<string, unknown>): string;
}

type Part = string | { path: string; optional: boolean; get: FieldGetter };

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
          hint: "write {column}, {a.b} or {optional?}; use '{{' and '}}' for literal braces",
        });
      }
      if (text) parts.push(text);
      text = '';
      const optional = inner.endsWith('?') && inner.length > 1;
      const path = optional ? inner.slice(0, -1).trim() : inner;
      parts.push({ path, optional, get: compilePath(path) });
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
  const placeholders = parts.filter((p) => typeof p !== 'string');
  return {
    source,
    fields: placeholders.map((p) => p.path),
    requiredFields: placeholders.filter((p) => !p.optional).map((p) => p.path),
    render(row) {
      let out = '';
      for (const p of parts) {
        if (typeof p === 'string') out += p;
        else {
          const v = p.get(row);
          if (p.optional && (v === MISSING || v === null || v === undefined)) continue;
          out += renderValue(v, p.path, row);
        }
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
