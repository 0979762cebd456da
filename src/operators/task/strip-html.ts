import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { decodeHtmlEntities } from './html-entities.ts';
import { keepsPass, mapTextBatch, TextFieldSchema } from './text-fields.ts';
import type { AsciiProfile } from './text-profile.ts';

/** Tags that end a paragraph-like block: they become a blank line. */
const BLOCK_TAGS = new Set(
  'p div section article header footer main nav aside blockquote pre ul ol dl table thead tbody tfoot form fieldset figure figcaption h1 h2 h3 h4 h5 h6 hr address details summary'.split(
    ' ',
  ),
);
/** Tags that end a line: they become a line break. */
const LINE_TAGS = new Set('br li tr dt dd caption option'.split(' '));
/** Table cells: a space keeps neighbouring cells apart. */
const CELL_TAGS = new Set(['td', 'th']);
/**
 * Every HTML element name. With `knownTagsOnly`, only these are treated as tags, so math like
 * `a<x and y>b` in a non-HTML field is less likely to be eaten.
 */
const KNOWN_TAGS = new Set(
  [
    ...BLOCK_TAGS,
    ...LINE_TAGS,
    ...CELL_TAGS,
    ...'a abbr area audio b base bdi bdo big body button canvas center cite code col colgroup data datalist del dfn dialog em embed font frame frameset head html i iframe img input ins kbd label legend link map mark menu meta meter noscript object optgroup output param picture progress q rp rt ruby s samp script search select slot small source span strike strong style sub sup svg template textarea time title track tt u var video wbr math mi mn mo mrow msup msub mfrac'.split(
      ' ',
    ),
  ].map((t) => t.toLowerCase()),
);

const COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const DECLARATION = /<![A-Za-z][^>]*>|<\?[\s\S]*?\?>/g;
const CDATA = /<!\[CDATA\[([\s\S]*?)\]\]>/g;
const TAG = /<(\/?)([A-Za-z][A-Za-z0-9:-]*)((?:\s(?:[^<>"']|"[^"]*"|'[^']*')*)?)\/?>/g;

export interface StripHtmlOptions {
  dropContents: readonly string[];
  knownTagsOnly: boolean;
  collapseWhitespace: boolean;
}

/**
 * Text of an HTML fragment: comments, declarations and the contents of `dropContents` elements
 * (script, style) are removed; block tags become blank lines, `<br>`/`<li>`/`<tr>` line breaks,
 * table cells spaces, other tags nothing; entities are decoded last (so `&lt;b&gt;` stays text).
 */
export function stripHtml(text: string, opts: StripHtmlOptions): string {
  // Plain text (no markup) only has its entities decoded: its whitespace is left alone.
  if (!/<[A-Za-z!?/]/.test(text)) return decodeHtmlEntities(text);
  let out = text.replace(CDATA, '$1').replace(COMMENT, '').replace(DECLARATION, '');
  for (const tag of opts.dropContents) {
    const name = tag.replace(/[^A-Za-z0-9-]/g, '');
    if (!name) continue;
    out = out.replace(new RegExp(`<${name}\\b[^>]*>[\\s\\S]*?(?:<\\/${name}\\s*>|$)`, 'gi'), ' ');
  }
  if (opts.collapseWhitespace) out = out.replace(/[ \t\n\r\f]+/g, ' ');
  out = out.replace(TAG, (whole, close: string, rawName: string) => {
    const name = rawName.toLowerCase();
    if (opts.knownTagsOnly && !KNOWN_TAGS.has(name)) return whole;
    if (BLOCK_TAGS.has(name)) return '\n\n';
    // A list item or row starts a line; its closing tag adds nothing (so items are not double-spaced).
    if (LINE_TAGS.has(name)) return close && name !== 'br' ? '' : '\n';
    if (CELL_TAGS.has(name)) return ' ';
    return '';
  });
  out = decodeHtmlEntities(out);
  return out
    .replace(/[ \t]*\n[ \t]*/g, '\n')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** Elements whose whole contents are removed, not just their tags. */
  dropContents: z.array(z.string().min(1)).default(['script', 'style']),
  /** Only remove tags with HTML element names (protects `a<b and c>d` style text). */
  knownTagsOnly: z.boolean().default(true),
  /** Treat source whitespace as a browser does (runs of spaces/newlines → one space) before tags add breaks. */
  collapseWhitespace: z.boolean().default(true),
});

export const stripHtmlOp = defineOperator<Task, typeof Params>({
  name: 'strip_html',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Remove HTML tags (block tags and <br> become line breaks), drop script/style contents, decode entities.',
  params: Params,
  create(params) {
    // An ASCII prompt this step leaves as it is, known from its profile.
    const keeps = (p: AsciiProfile) => p.noMarkup;
    return {
      name: 'strip_html',
      kind: 'map',
      profilePass: keepsPass(params.field, keeps),
      process(batch) {
        return mapTextBatch(batch, params.field, (t) => stripHtml(t, params), keeps);
      },
    };
  },
});
