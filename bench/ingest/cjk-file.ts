// The file of `bench ingest --pipeline dj10`: N rows `{text, source}` of English, Chinese and
// Japanese text with the hostile rows real crawls have — HTML, URLs, punctuation runs, repeated
// characters, full-width forms, emoji, control characters, empty and very long rows, exact and
// case-only repeats — from a seed (the same seed gives the same bytes).
// Run: node bench/ingest/cjk-file.ts OUT.jsonl [ROWS] [SEED]
import { createWriteStream } from 'node:fs';
import { Rng } from '../../src/core/rng.ts';

const EN = (
  'the data model learns from clean text and we filter noisy pages before training because ' +
  'quality matters more than size when a small team builds a useful corpus for reading and writing'
).split(' ');
const ZH = '数据清洗问题答案模型训练我们今天学习中文质量网页文本处理语言重复内容过滤规则时间工作方法'.split(
  '',
);
const JA_KANA =
  'あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをん'.split('');
const JA_KATA = 'データモデルテキストフィルタ'.split('');
const JA_KANJI = '日本語学習文章処理品質'.split('');
const EMOJI = ['😀', '🎉', '👍', '🔥', '✅', '❤️', '👨‍👩‍👧', '🇯🇵'];
const FULLWIDTH = ['ＡＢＣ', '１２３', '！', '？', '（注）', '＃', '％', 'ｗｗｗ'];
const CONTROL = ['\u0007', '\u200b', '\ufeff', '\u00ad', '\u0084', '\u200d', '\u001b'];

type Pick = <T>(xs: readonly T[]) => T;

function english(pick: Pick, n: number): string {
  const words = Array.from({ length: n }, () => pick(EN));
  words[0] = words[0]!.charAt(0).toUpperCase() + words[0]!.slice(1);
  return `${words.join(' ')}.`;
}

function chinese(pick: Pick, rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    s += pick(ZH);
    if (i % 7 === 6) s += rand() < 0.8 ? '，' : '、';
  }
  return `${s}${rand() < 0.8 ? '。' : '？'}`;
}

function japanese(pick: Pick, rand: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = rand();
    s += r < 0.6 ? pick(JA_KANA) : r < 0.8 ? pick(JA_KANJI) : pick(JA_KATA);
    if (i % 9 === 8) s += '、';
  }
  return `${s}。`;
}

/** One text of the mix: mostly prose in one of three languages, some of it hostile. */
export function cjkText(rand: () => number, i: number): string {
  const pick: Pick = (xs) => xs[Math.floor(rand() * xs.length)]!;
  const lang = rand();
  const prose = (k: number) =>
    lang < 0.4
      ? english(pick, 6 + Math.floor(rand() * 18) * k)
      : lang < 0.75
        ? chinese(pick, rand, 10 + Math.floor(rand() * 40) * k)
        : japanese(pick, rand, 10 + Math.floor(rand() * 40) * k);
  const r = rand();
  let t = prose(1);
  if (r < 0.1) t = `<div><p>${t}</p><br/><b>${prose(1)}</b> &amp; more</div>`;
  else if (r < 0.16)
    t = `${t} 详见 https://example.com/p/${i % 7000}?id=${Math.floor(rand() * 99)} ${prose(1)}`;
  else if (r < 0.2) t = `${t}！！！？？？……。。。 ${pick(['!!!???', '----', '***'])} ${prose(1)}`;
  else if (r < 0.24) t = `${pick(ZH)}${pick(ZH)}`.repeat(8 + Math.floor(rand() * 20));
  else if (r < 0.27) t = `${pick(FULLWIDTH)}${t}${pick(FULLWIDTH)}「${prose(1)}」`;
  else if (r < 0.3) t = `${t} ${pick(EMOJI)}${pick(EMOJI)} ${prose(1)}`;
  else if (r < 0.32) t = t.replace(/(.{5})/gu, (m) => `${m}${pick(CONTROL)}`);
  else if (r < 0.335) t = rand() < 0.5 ? '' : pick(['   ', '。', 'ok', '\n\t']);
  else if (r < 0.337) t = Array.from({ length: 30 + Math.floor(rand() * 120) }, () => prose(1)).join('\n');
  else if (r < 0.36) t = `${t} ${t} ${t} ${t}`;
  // Whitespace as crawls leave it: runs of spaces, tabs, ideographic spaces, line breaks.
  if (rand() < 0.15) t = t.replace(/ /g, () => pick([' ', '  ', '\t', '\u3000', ' \n ']));
  return t;
}

/** One row as a JSON line; about 5 % repeat an earlier row's text exactly or in upper case. */
export function cjkLine(rand: () => number, i: number, recent: string[]): string {
  let text: string;
  const r = rand();
  if (r < 0.04 && recent.length > 0) text = recent[Math.floor(rand() * recent.length)]!;
  else if (r < 0.05 && recent.length > 0) text = recent[Math.floor(rand() * recent.length)]!.toUpperCase();
  else {
    text = cjkText(rand, i);
    if (recent.length < 512) recent.push(text);
    else recent[i % 512] = text;
  }
  return JSON.stringify({ text, source: `crawl-${i % 17}` });
}

/** Write `rows` lines from `seed` (`bench ingest --pipeline dj10 --rows N`). */
export async function writeCjkFile(out: string, rows: number, seed: number): Promise<void> {
  const rng = new Rng(`dj10:${seed}`);
  const rand = () => rng.float();
  const recent: string[] = [];
  const w = createWriteStream(out);
  let buf = '';
  for (let i = 0; i < rows; i++) {
    buf += `${cjkLine(rand, i, recent)}\n`;
    if (buf.length > 1 << 20) {
      if (!w.write(buf)) await new Promise<void>((r) => w.once('drain', () => r()));
      buf = '';
    }
  }
  await new Promise<void>((resolve, reject) => {
    w.once('error', reject);
    w.end(buf, resolve);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [out, rowsArg, seedArg] = process.argv.slice(2);
  if (!out) throw new Error('usage: node bench/ingest/cjk-file.ts OUT.jsonl [ROWS] [SEED]');
  await writeCjkFile(out, Number(rowsArg ?? 1_000_000), Number(seedArg ?? 7));
}
