import { stableStringify } from '../../core/ids.ts';
import type { JsonValue, Task } from '../../core/task.ts';
import type { TaskPath } from './task-paths.ts';
import { formatTaskPath, getTaskValue, parseTaskPath } from './task-paths.ts';

/**
 * Small string templates over a task's fields: `"{meta.question}\n{meta.choices}"`.
 * `{path}` inserts a value (see task-paths.ts for paths); `{{` and `}}` are literal braces.
 */
export type TemplatePart = string | TaskPath;

/** How arrays are rendered into text. */
export type ListFormat = 'lines' | 'lettered' | 'numbered' | 'json';

/** Parse a template, or return what is wrong with it. */
export function parseTemplate(template: string): TemplatePart[] | string {
  const parts: TemplatePart[] = [];
  let literal = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c === '{' && template[i + 1] === '{') {
      literal += '{';
      i += 2;
    } else if (c === '}' && template[i + 1] === '}') {
      literal += '}';
      i += 2;
    } else if (c === '{') {
      const end = template.indexOf('}', i + 1);
      if (end < 0) return `unclosed '{' at offset ${i}`;
      const path = parseTaskPath(template.slice(i + 1, end).trim(), 'meta');
      if (typeof path === 'string') return `placeholder at offset ${i}: ${path}`;
      if (literal) parts.push(literal);
      literal = '';
      parts.push(path);
      i = end + 1;
    } else if (c === '}') {
      return `unmatched '}' at offset ${i} (write '}}' for a literal brace)`;
    } else {
      literal += c;
      i++;
    }
  }
  if (literal) parts.push(literal);
  return parts;
}

/** Text for a JSON value; undefined for missing or null values. */
export function renderValue(value: JsonValue | undefined, listFormat: ListFormat): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (listFormat === 'json') return stableStringify(value);
    const items = value.map((v) => (v !== null && typeof v === 'object' ? stableStringify(v) : String(v)));
    if (listFormat === 'lettered')
      return items.map((s, k) => `${String.fromCharCode(65 + (k % 26))}. ${s}`).join('\n');
    if (listFormat === 'numbered') return items.map((s, k) => `${k + 1}. ${s}`).join('\n');
    return items.join('\n');
  }
  return stableStringify(value);
}

/**
 * Fill a parsed template from `task`. Missing values become '' and are listed in `missing`
 * (so the caller can drop the row or accept the gap).
 */
export function fillTemplate(
  parts: readonly TemplatePart[],
  task: Task,
  listFormat: ListFormat,
): { text: string; missing: string[] } {
  let text = '';
  const missing: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const value = renderValue(getTaskValue(task, part), listFormat);
    if (value === undefined) missing.push(formatTaskPath(part));
    else text += value;
  }
  return { text, missing };
}
