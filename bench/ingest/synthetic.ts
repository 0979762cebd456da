// The synthetic task file of bench/ingest: short arithmetic-flavoured problems with ~4% exact
// duplicates (case/space variants), ~3% too short, ~1% HTML noise.
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { Rng } from '../../src/core/rng.ts';

const WORDS =
  'apple basket carries dozen eggs farmer garden hours invoice jar kilometre litre market number orange price quarter ribbon sells ticket'.split(
    ' ',
  );

/** Its mapping: `{ id, question, answer }` rows. */
export const SYNTHETIC_MAPPING = { id: 'id', prompt: 'question', answer: 'answer' } as const;

export async function writeSyntheticFile(path: string, rows: number, seed: number): Promise<void> {
  const rng = new Rng(seed);
  const out = createWriteStream(path);
  let buf = '';
  for (let i = 0; i < rows; i++) {
    const r = rng.float();
    let q: string;
    if (r < 0.04 && i > 10) {
      const j = rng.int(i);
      q = problemText(new Rng(`${seed}:${j}`))
        .toUpperCase()
        .replace(/ /g, '  ');
    } else if (r < 0.07) {
      q = 'too short';
    } else {
      q = problemText(new Rng(`${seed}:${i}`));
      if (r < 0.08) q = `<p>${q}</p>`;
    }
    buf += `${JSON.stringify({ id: `s${i}`, question: q, answer: String(rng.int(1000)) })}\n`;
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await new Promise<void>((res) => out.once('drain', () => res()));
      buf = '';
    }
  }
  out.write(buf);
  await new Promise<void>((res, rej) => out.end((err?: Error | null) => (err ? rej(err) : res())));
}

export function problemText(rng: Rng): string {
  const n = 12 + rng.int(20);
  const parts: string[] = [];
  for (let k = 0; k < n; k++)
    parts.push(rng.float() < 0.2 ? String(rng.int(500)) : WORDS[rng.int(WORDS.length)]!);
  return `${parts.join(' ')}?`;
}

/**
 * `writeSyntheticFile` in a child process: the bench reports the peak RSS of the runs, and ~10M rows
 * made in this process would leave their garbage in its heap and allocator (~100 MB at 10M rows).
 */
export function writeSyntheticFileApart(path: string, rows: number, seed: number): Promise<void> {
  const child = spawn(
    process.execPath,
    [...process.execArgv, import.meta.filename, path, String(rows), String(seed)],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`writing the synthetic file failed (exit ${code})`)),
    );
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [path, rows, seed] = process.argv.slice(2);
  await writeSyntheticFile(path!, Number(rows), Number(seed));
}
