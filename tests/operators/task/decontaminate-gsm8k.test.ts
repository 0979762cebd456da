import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GSM8K_TEST, runOp, tmp } from './decontaminate-helpers.ts';
import { gsm8k, ids, reasons, task } from './helpers.ts';

/**
 * A light, deterministic paraphrase: the last sentence (the question) moves to the front and common
 * words are swapped for synonyms; numbers and names stay, as in a reworded benchmark item.
 */
const SYNONYMS: Array<[RegExp, string]> = [
  [/\bHow many\b/g, 'What number of'],
  [/\bHow much\b/g, 'What amount'],
  [/\bbuys\b/g, 'purchases'],
  [/\bbought\b/g, 'purchased'],
  [/\beach\b/g, 'every'],
  [/\btotal\b/g, 'overall'],
  [/\bhas\b/g, 'owns'],
  [/\bwants\b/g, 'would like'],
  [/\bneeds\b/g, 'requires'],
  [/\bmakes\b/g, 'earns'],
  [/\bIf\b/g, 'Suppose'],
  [/\bthen\b/g, 'afterwards'],
  [/\bgets\b/g, 'receives'],
  [/\bdoes\b/g, 'will'],
  [/\bthe\b/g, 'that'],
];

function paraphrase(q: string): string {
  const sentences = q.match(/[^.?!]+[.?!]*/g)?.map((s) => s.trim()) ?? [q];
  const reordered = sentences.length > 1 ? [sentences.at(-1)!, ...sentences.slice(0, -1)] : sentences;
  let out = reordered.join(' ');
  for (const [from, to] of SYNONYMS) out = out.replace(from, to);
  return out;
}

describe('decontaminate: the shipped GSM8K test split', () => {
  const rows = gsm8k();
  const reference = { file: GSM8K_TEST, field: 'question' };

  it('against itself removes all 1,319 rows by exact match, each naming its own line', async () => {
    expect(rows).toHaveLength(1319);
    const tasks = rows.map((r, i) => task(`g${i}`, r.question));
    const r = await runOp({ references: [reference], ngram: false, minhash: false }, [tasks]);
    expect(r.rows).toEqual([]);
    expect(r.dropped).toHaveLength(1319);
    expect(r.metrics.contaminated_exact).toBe(1319);
    // GSM8K test has no two questions with the same normal form, so each names its own line.
    expect(
      r.dropped.every((d, i) => d.reason === `contaminated: exact match of reference test.jsonl:${i + 1}`),
    ).toBe(true);
  });

  /*
   * Measured on 20 paraphrased rows (every 65th row; paraphrase() above), counting a catch only
   * when the reason names the row the paraphrase came from:
   *   exact                                   0/20 (recall 0.00)
   *   13-grams, threshold 0.5 (GPT-3 style)   4/20 (0.20)    threshold 0.2            12/20 (0.60)
   *   8-grams, threshold 0.2                 16/20 (0.80)
   *   MinHash (char 5-grams), threshold 0.8   3/20 (0.15)    threshold 0.5            12/20 (0.60)
   *   8-grams 0.2 + MinHash 0.5              18/20 (0.90)
   * and no false positive at the loosest setting: with the 20 source rows taken out of the
   * reference, none of the 20 paraphrases is matched to another row.
   */
  it('catches paraphrased copies of 20 rows by n-gram and MinHash, and matches nothing else', async () => {
    const picked = Array.from({ length: 20 }, (_, k) => k * 65);
    const tasks = picked.map((i) => task(`p${i}`, paraphrase(rows[i]!.question)));
    const line = (id: string) => `test.jsonl:${Number(id.slice(1)) + 1}`;
    const caught = async (params: Record<string, unknown>) => {
      const r = await runOp({ references: [reference], exact: false, ...params }, [tasks]);
      return r.dropped.filter((d) => new RegExp(`reference ${line(d.row.id)}( |$)`).test(d.reason)).length;
    };
    const measured = {
      exact: (await runOp({ references: [reference], ngram: false, minhash: false }, [tasks])).dropped.length,
      ngram13: await caught({ ngram: { n: 13, threshold: 0.5 }, minhash: false }),
      ngram13loose: await caught({ ngram: { n: 13, threshold: 0.2 }, minhash: false }),
      ngram8: await caught({ ngram: { n: 8, threshold: 0.2 }, minhash: false }),
      minhash08: await caught({ ngram: false, minhash: { threshold: 0.8 } }),
      minhash05: await caught({ ngram: false, minhash: { threshold: 0.5 } }),
      both: await caught({ ngram: { n: 8, threshold: 0.2 }, minhash: { threshold: 0.5 } }),
    };
    expect(measured).toEqual({
      exact: 0,
      ngram13: 4,
      ngram13loose: 12,
      ngram8: 16,
      minhash08: 3,
      minhash05: 12,
      both: 18,
    });
    const dir = tmp();
    const others = join(dir, 'others.jsonl');
    const keep = new Set(picked);
    writeFileSync(
      others,
      `${rows
        .filter((_, i) => !keep.has(i))
        .map((r) => JSON.stringify({ question: r.question }))
        .join('\n')}\n`,
    );
    const fp = await runOp(
      { references: [{ file: others }], ngram: { n: 8, threshold: 0.2 }, minhash: { threshold: 0.5 } },
      [tasks],
    );
    expect(reasons(fp)).toEqual([]);
    expect(ids(fp.rows)).toEqual(tasks.map((t) => t.id));
  });
});
