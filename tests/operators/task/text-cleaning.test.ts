import { describe, expect, it } from 'vitest';
import { decodeHtmlEntities } from '../../../src/operators/task/html-entities.ts';
import { normalizeUnicode, normalizeUnicodeOp } from '../../../src/operators/task/normalize-unicode.ts';
import {
  normalizeWhitespace,
  normalizeWhitespaceOp,
} from '../../../src/operators/task/normalize-whitespace.ts';
import { removeUrlsEmails, removeUrlsEmailsOp } from '../../../src/operators/task/remove-urls-emails.ts';
import { stripHtml, stripHtmlOp } from '../../../src/operators/task/strip-html.ts';
import { run, task } from './helpers.ts';

describe('normalize_whitespace', () => {
  const text = '  Line  one\t here \r\n\r\n\r\n  line\u00a0two \rline three  ';
  it('keeps single line breaks and one blank line between paragraphs by default', () => {
    expect(normalizeWhitespace(text)).toBe('Line one here\n\nline two\nline three');
  });
  it('paragraphs mode joins wrapped lines; collapse mode gives one line', () => {
    expect(normalizeWhitespace(text, 'paragraphs')).toBe('Line one here\n\nline two line three');
    expect(normalizeWhitespace(text, 'collapse')).toBe('Line one here line two line three');
  });
  it('applies to the chosen field and to chat turns when there is no prompt', async () => {
    const chat = task('c', '', {
      prompt: undefined,
      messages: [{ role: 'user', content: ' a  b ' }],
      answer: ' 4 ',
    });
    const r = await run(normalizeWhitespaceOp, { field: 'all' }, [
      chat,
      task('p', 'x  y', { answer: '  5' }),
    ]);
    expect(r.rows.map((t) => [t.prompt, t.messages?.[0]?.content, t.answer])).toEqual([
      [undefined, 'a b', '4'],
      ['x y', undefined, '5'],
    ]);
    expect(r.metrics).toEqual({ changed: 2 });
  });
});

describe('normalize_unicode', () => {
  it('NFC by default, NFKC folds compatibility forms', () => {
    const s = 'cafe\u0301 x\u00b2 \ufb01le \uff11\uff12';
    const base = { stripInvisible: false, asciiQuotes: false, asciiDashes: false };
    expect(normalizeUnicode(s, { ...base, form: 'NFC' })).toBe('caf\u00e9 x\u00b2 \ufb01le \uff11\uff12');
    expect(normalizeUnicode(s, { ...base, form: 'NFKC' })).toBe('caf\u00e9 x2 file 12');
  });
  it('strips zero-width and control characters, keeps tabs and newlines', async () => {
    const r = await run(normalizeUnicodeOp, {}, [task('a', 'a\u200bb\ufeffc\u0007d\te\nf\u00ad')]);
    expect(r.rows[0]!.prompt).toBe('abcd\te\nf');
  });
  it('optionally turns smart quotes and dashes into ASCII', async () => {
    const r = await run(normalizeUnicodeOp, { asciiQuotes: true, asciiDashes: true }, [
      task('a', '\u201cIt\u2019s 3\u20134\u201d \u2014 \u2018ok\u2019'),
    ]);
    expect(r.rows[0]!.prompt).toBe("\"It's 3-4\" - 'ok'");
  });
});

describe('strip_html', () => {
  const opts = { dropContents: ['script', 'style'], knownTagsOnly: true, collapseWhitespace: true };
  it('removes tags, drops script/style contents, turns blocks and <br> into line breaks', () => {
    const html =
      '<html><head><style>p{color:red}</style></head><body>\n  <h1>Title</h1>\n<p>First &amp; <b>bold</b> line<br/>second   line</p><script>alert("x<y")</script><p>Caf&eacute; &#8364;5 &#x3c0; &lt;b&gt;</p><ul><li>one</li><li>two</li></ul><!-- note --></body></html>';
    expect(stripHtml(html, opts)).toBe(
      'Title\n\nFirst & bold line\nsecond line\n\nCafé €5 π <b>\n\none\ntwo',
    );
  });
  it('leaves plain text and math comparisons alone (only entities are decoded)', () => {
    expect(stripHtml('If a < b and c > d,\n  then 2<3 &amp; x<<1', opts)).toBe(
      'If a < b and c > d,\n  then 2<3 & x<<1',
    );
    expect(stripHtml('x <foo> y <span class="a>b">z</span>', opts)).toBe('x <foo> y z');
  });
  it('decodes numeric and named entities, keeps unknown or invalid ones', () => {
    expect(decodeHtmlEntities('&quot;&apos;&nbsp;&frac12;&#65;&#x42;&bogus;&#0;&#xD800;')).toBe(
      '"\'\u00a0\u00bdAB&bogus;&#0;&#xD800;',
    );
  });
  it('runs as an operator on the answer too', async () => {
    const r = await run(stripHtmlOp, { field: 'all' }, [task('a', '<p>Q</p>', { answer: '<i>42</i>' })]);
    expect([r.rows[0]!.prompt, r.rows[0]!.answer]).toEqual(['Q', '42']);
  });
});

describe('remove_urls_emails', () => {
  const opts = { urls: true, emails: true, replacement: '' };
  it('removes URLs and e-mail addresses without leaving double spaces', () => {
    expect(
      removeUrlsEmails(
        'See https://example.com/a?b=1, or www.test.org. Mail bob.smith+x@mail.example.co.uk now',
        opts,
      ),
    ).toEqual({ text: 'See, or. Mail now', urls: 2, emails: 1 });
  });
  it('keeps balanced parentheses in URLs and drops trailing punctuation', () => {
    const r = removeUrlsEmails('(see https://en.wikipedia.org/wiki/Foo_(bar)) and http://x.io/y.', {
      ...opts,
      replacement: '<{kind}>',
    });
    expect(r.text).toBe('(see <url>) and <url>.');
  });
  it('an address inside a URL goes with the URL; bare domains are kept', () => {
    const r = removeUrlsEmails('ftp://user@host.com/file and example.com and a@b.io', {
      ...opts,
      replacement: '[{kind}]',
    });
    expect(r).toEqual({ text: '[url] and example.com and [email]', urls: 1, emails: 1 });
  });
  it('counts removals in metrics', async () => {
    const r = await run(removeUrlsEmailsOp, { replacement: '<URL>' }, [
      task('a', 'go to http://a.com now'),
      task('b', 'nothing here'),
    ]);
    expect(r.rows.map((t) => t.prompt)).toEqual(['go to <URL> now', 'nothing here']);
    expect(r.metrics).toEqual({ changed: 1, urls_removed: 1, emails_removed: 0 });
  });
});
