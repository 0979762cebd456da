// The issue-40 measuring file: N short rows `{question, answer}` (no id column) with HTML tags,
// URLs, punctuation runs, repeated words, exact repeats and a little CJK, from a seed.
// Run: node bench/engine/qa-file.ts OUT.jsonl [ROWS] [SEED]
import { createWriteStream } from 'node:fs';
import { Rng } from '../../src/core/rng.ts';

const WORDS = (
  'the a of to and in is it you that he was for on are with as his they be at one have this from ' +
  'or had by word but what some we can out other were all there when up use your how said an each ' +
  'which she do their time if will way about many then them write would like so these her long make'
).split(' ');
const CJK = ['数据', '清洗', '问题', '答案', '模型', '训练', '我们', '今天', '学习', '中文'];

/** One row as a JSON line; `rand` is the file's seeded stream. */
export function qaLine(rand: () => number, i: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
  const r = rand();
  let q = `${words(4 + Math.floor(rand() * 14))}?`;
  if (r < 0.15) q = `<p>${q}</p> <b>${words(3)}</b>`;
  else if (r < 0.25) q = `${q} see https://example.com/q/${i % 5000}?ref=${Math.floor(rand() * 99)}`;
  else if (r < 0.3) q = `${q} !!!??? ... ---- ${words(2)} ***`;
  else if (r < 0.35) q = `${words(2)} ${words(2)} ${words(2)} ${words(2)}`.replace(/\S+ \S+/g, 'the cat');
  else if (r < 0.4) q = `${pick(CJK)}${pick(CJK)}，${pick(CJK)}${pick(CJK)}？ ${words(3)}`;
  else if (r < 0.42) q = 'ok?';
  if (rand() < 0.2) q = q.replace(/ /g, () => (rand() < 0.2 ? '   ' : rand() < 0.05 ? '\t \n' : ' '));
  if (rand() < 0.08) q = `Question ${i % 1000}: what is ${i % 97} plus ${i % 89}?`;
  const a = String(Math.floor(rand() * 1000));
  return JSON.stringify({ question: q, answer: a });
}

/** Write `rows` lines of the file from `seed` (the bench's `--pipeline issue40 --rows N`). */
export async function writeQaFile(out: string, rows: number, seed: number): Promise<void> {
  const rng = new Rng(seed);
  const rand = () => rng.float();
  const w = createWriteStream(out);
  let buf = '';
  for (let i = 0; i < rows; i++) {
    buf += `${qaLine(rand, i)}\n`;
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
  if (!out) throw new Error('usage: node bench/engine/qa-file.ts OUT.jsonl [ROWS] [SEED]');
  await writeQaFile(out, Number(rowsArg ?? 1_000_000), Number(seedArg ?? 7));
}
