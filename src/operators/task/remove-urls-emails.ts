import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapText, TextFieldSchema } from './text-fields.ts';

/**
 * A scheme URL (any scheme, `s3://`, `file://`; a scheme may hold letters of any script, as in
 * `http测试://`, so nothing of it is left behind) or a `www.` host, up to whitespace, a quote or
 * angle bracket, or CJK punctuation (a URL followed by `。` or `，` in Chinese text ends there).
 * Bare domains are not matched.
 */
const URL =
  /(?<![A-Za-z0-9])(?:[A-Za-z][\p{L}\p{N}+.-]*:\/\/|www\.)[^\s<>"'`\u3000-\u303f\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f]+/giu;
const WWW = /www\./i;
const EMAIL = /(?<![\w.%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])/g;

/** Sentence punctuation glued to the end of a URL is not part of it; a `)` only if unbalanced. */
function trimUrl(url: string): string {
  let end = url.length;
  for (;;) {
    const c = url[end - 1];
    if (c === undefined) break;
    if ('.,;:!?'.includes(c)) end--;
    else if (c === ')') {
      const body = url.slice(0, end);
      const opens = body.split('(').length - 1;
      const closes = body.split(')').length - 1;
      if (closes > opens) end--;
      else break;
    } else break;
  }
  return url.slice(0, end);
}

export interface RemoveUrlsOptions {
  urls: boolean;
  emails: boolean;
  /** Put in place of each match; `{kind}` becomes `url` or `email`. */
  replacement: string;
}

/** Replace URLs and e-mail addresses; counts what was replaced. */
export function removeUrlsEmails(
  text: string,
  opts: RemoveUrlsOptions,
): { text: string; urls: number; emails: number } {
  const spans: Array<{ start: number; end: number; kind: 'url' | 'email' }> = [];
  // The scheme pattern may start at any letter: look only in texts that can hold a URL.
  if (opts.urls && (text.includes('://') || WWW.test(text)))
    for (const m of text.matchAll(URL)) {
      const url = trimUrl(m[0]);
      if (url.length >= 5) spans.push({ start: m.index, end: m.index + url.length, kind: 'url' });
    }
  if (opts.emails)
    for (const m of text.matchAll(EMAIL)) {
      const start = m.index;
      const end = start + m[0].length;
      // An address inside a URL (http://user@host…) goes with the URL.
      if (!spans.some((s) => s.kind === 'url' && start < s.end && end > s.start))
        spans.push({ start, end, kind: 'email' });
    }
  if (spans.length === 0) return { text, urls: 0, emails: 0 };
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let cursor = 0;
  for (const span of spans) {
    let keepUntil = span.start;
    let resume = span.end;
    if (opts.replacement === '') {
      // An emptied slot should leave neither a double space nor a space before punctuation.
      let before = span.start;
      while (before > cursor && (text[before - 1] === ' ' || text[before - 1] === '\t')) before--;
      const next = text[span.end];
      if (next === undefined || ' \t.,;:!?)'.includes(next)) keepUntil = before;
      if (before === 0)
        while (resume < text.length && (text[resume] === ' ' || text[resume] === '\t')) resume++;
    }
    out += text.slice(cursor, keepUntil) + opts.replacement.replaceAll('{kind}', span.kind);
    cursor = resume;
  }
  out += text.slice(cursor);
  const urls = spans.filter((s) => s.kind === 'url').length;
  return { text: out, urls, emails: spans.length - urls };
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  urls: z.boolean().default(true),
  emails: z.boolean().default(true),
  /** '' removes; a placeholder such as '<{kind}>' gives '<url>' / '<email>'. */
  replacement: z.string().default(''),
});

export const removeUrlsEmailsOp = defineOperator<Task, typeof Params>({
  name: 'remove_urls_emails',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description: 'Replace URLs and e-mail addresses with a placeholder (default: remove them).',
  params: Params,
  create(params) {
    return {
      name: 'remove_urls_emails',
      kind: 'map',
      process(batch) {
        let urls = 0;
        let emails = 0;
        let changed = 0;
        const rows = batch.map((task) => {
          const out = mapText(task, params.field, (t) => {
            const r = removeUrlsEmails(t, params);
            urls += r.urls;
            emails += r.emails;
            return r.text;
          });
          if (out !== task) changed++;
          return out;
        });
        return { rows, dropped: [], metrics: { changed, urls_removed: urls, emails_removed: emails } };
      },
    };
  },
});
