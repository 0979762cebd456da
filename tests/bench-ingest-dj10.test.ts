import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCjkFile } from '../bench/ingest/cjk-file.ts';
import { winnow } from './helpers/cli.ts';
import { tempDir } from './helpers/tmp.ts';

// `bench ingest --pipeline dj10`: the 10-operator Data-Juicer recipe over the generated
// English/Chinese/Japanese crawl file. The output's shape and the file's determinism, not speed.
const dir = tempDir('winnow-bench-dj10-');
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('bench/ingest/cjk-file.ts', () => {
  it('writes the same bytes for the same seed and rows, other bytes for another seed', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((n) => join(dir, `${n}.jsonl`));
    await writeCjkFile(a!, 2000, 7);
    await writeCjkFile(b!, 2000, 7);
    await writeCjkFile(c!, 2000, 8);
    expect(sha(a!)).toBe(sha(b!));
    expect(sha(c!)).not.toBe(sha(a!));
  });

  it('holds the hostile rows real crawls have, each row a {text, source} object', async () => {
    const file = join(dir, 'mix.jsonl');
    await writeCjkFile(file, 5000, 7);
    const rows = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { text: unknown; source: unknown });
    expect(rows).toHaveLength(5000);
    for (const r of rows) expect([typeof r.text, typeof r.source]).toEqual(['string', 'string']);
    const texts = rows.map((r) => r.text as string);
    const some = (re: RegExp) => texts.filter((t) => re.test(t)).length;
    expect(some(/\p{Script=Han}/u)).toBeGreaterThan(1000);
    expect(some(/\p{Script=Hiragana}/u)).toBeGreaterThan(500);
    expect(some(/^[A-Z][a-z]/)).toBeGreaterThan(1000);
    expect(some(/<div><p>/)).toBeGreaterThan(100);
    expect(some(/https:\/\//)).toBeGreaterThan(100);
    expect(some(/！！！？？？/)).toBeGreaterThan(50);
    expect(some(/(..)\1{7}/u)).toBeGreaterThan(50);
    expect(some(/[Ａ-Ｚ０-９]/u)).toBeGreaterThan(20);
    expect(some(/\p{Extended_Pictographic}/u)).toBeGreaterThan(50);
    expect(some(/[\u0007\u001b\u200b\ufeff]/u)).toBeGreaterThan(20);
    expect(some(/\u3000/u)).toBeGreaterThan(50);
    expect(texts.filter((t) => t === '').length).toBeGreaterThan(5);
    expect(texts.filter((t) => t.length > 2000).length).toBeGreaterThan(2);
    // Exact and upper-cased repeats of earlier rows, for the dedup step.
    expect(new Set(texts).size).toBeLessThan(texts.length - 100);
  });
});

describe('winnow bench ingest --pipeline dj10', () => {
  it('runs the recipe on both Winnow paths and the anchors, on its own generated file', () => {
    const r = winnow(
      [
        ...['bench', 'ingest', '--pipeline', 'dj10', '--rows', '300', '--runs', 'full,full-duckdb'],
        ...['--docs', '0', '--no-python'],
      ],
      { timeoutMs: 240_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('dj10 recipe (10 Data-Juicer ops), engine: duckdb');
    const j = winnow(
      [
        ...['bench', 'ingest', '--pipeline', 'dj10', '--rows', '300', '--seed', '7'],
        ...['--runs', 'full,full-duckdb', '--docs', '0', '--anchor', '--json'],
      ],
      { timeoutMs: 240_000 },
    );
    expect(j.code, j.stderr).toBe(0);
    const out = JSON.parse(j.stdout);
    expect([out.file, out.pipeline, out.mapping]).toEqual(['synthetic', 'dj10', { prompt: 'text' }]);
    const runs = out.runs as Array<{ run: string; rows: number; landed: number; engineSteps: number }>;
    const winnowRuns = runs.filter((x) => !x.run.startsWith('python'));
    expect(winnowRuns.map((x) => [x.run, x.rows, x.engineSteps])).toEqual([
      ['dj10 recipe (10 Data-Juicer ops)', 300, 0],
      // The recipe opens with clean_html_mapper (strip_html has no column-wise form): the engine's
      // prefix is empty and every step runs row by row on both paths.
      ['dj10 recipe (10 Data-Juicer ops), engine: duckdb', 300, 0],
    ]);
    expect(winnowRuns[1]!.landed).toBe(winnowRuns[0]!.landed);
    expect(winnowRuns[0]!.landed).toBeGreaterThan(200);
    expect(winnowRuns[0]!.landed).toBeLessThan(300);
    // Every step is named after its Data-Juicer operator, in the recipe's order.
    expect((out.steps as Array<{ step: string }>).map((s) => s.step)).toEqual([
      'read',
      'map',
      'clean_html_mapper',
      'clean_links_mapper',
      'punctuation_normalization_mapper',
      'whitespace_normalization_mapper',
      'text_length_filter',
      'alphanumeric_filter',
      'special_characters_filter',
      'character_repetition_filter',
      'word_repetition_filter',
      'document_deduplicator',
      'write',
    ]);
    for (const anchor of [out.anchors.python, out.anchors.polars]) {
      if ('skipped' in anchor) expect(typeof anchor.skipped).toBe('string');
      else {
        expect(anchor.rows).toBe(300);
        // The anchors' departures (docs/performance.md) move a few rows at most.
        expect(Math.abs(anchor.kept - winnowRuns[0]!.landed)).toBeLessThanOrEqual(6);
      }
    }
  }, 600_000);
});
