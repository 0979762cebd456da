import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

/**
 * Data-Juicer keeps every row no operator drops, identical ones too. A recipe run gives each task
 * the id of its source row (FILE:ROW), so two rows with the same text are two tasks, unless a
 * deduplicator drops one; with np workers too.
 */
const ROWS = [
  { text: 'The same row, written twice over.', n: 1 },
  { text: 'Another row of plain text here.', n: 2 },
  { text: 'The same row, written twice over.', n: 3 },
  { text: 'A third row, different from both.', n: 4 },
  { text: 'The same row, written twice over.', n: 5 },
];

function run(
  ops: string,
  np: number | null,
): { code: number; stderr: string; kept: number[]; ids: string[] } {
  const dir = tempDir('winnow-dj-rowids-');
  writeFileSync(join(dir, 'rows.jsonl'), ROWS.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const npLine = np === null ? '' : `np: ${np}\n`;
  writeFileSync(
    join(dir, 'recipe.yaml'),
    `dataset_path: ./rows.jsonl\nexport_path: ./out.jsonl\n${npLine}process:\n${ops}`,
  );
  const r = winnow(['run', 'recipe.yaml', '--db', join(dir, 'db')], { cwd: dir });
  if (r.code !== 0) return { code: r.code, stderr: r.stderr, kept: [], ids: [] };
  const kept = readFileSync(join(dir, 'out.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { n: number }).n);
  const t = winnow(['inspect', '--db', join(dir, 'db'), '--table', 'tasks', '--json'], { cwd: dir });
  const ids = (JSON.parse(t.stdout) as { sample: { id: string }[] }).sample.map((s) => s.id);
  return { code: r.code, stderr: r.stderr, kept, ids };
}

describe('a recipe gives every source row its own task', () => {
  for (const np of [null, 2])
    it(`without a dedup op identical rows are all kept (np: ${np ?? 'absent'})`, () => {
      const r = run('  - text_length_filter: { min_len: 5 }\n', np);
      expect(r.code, r.stderr).toBe(0);
      expect(r.kept).toEqual([1, 2, 3, 4, 5]);
      expect(r.ids).toEqual(['rows.jsonl:1', 'rows.jsonl:2', 'rows.jsonl:3', 'rows.jsonl:4', 'rows.jsonl:5']);
      expect(r.stderr).not.toContain('duplicate id');
    }, 120_000);

  it('a deduplicator still drops the copies, at its own step', () => {
    const r = run('  - document_deduplicator:\n', 2);
    expect(r.code, r.stderr).toBe(0);
    expect(r.kept).toEqual([1, 2, 4]);
    expect(r.ids).toEqual(['rows.jsonl:1', 'rows.jsonl:2', 'rows.jsonl:4']);
  }, 120_000);

  it('a row split into chunks gives FILE:ROW, FILE:ROW.2 …', () => {
    const r = run('  - text_chunk_mapper: { max_len: 20, split_pattern: null }\n', null);
    expect(r.code, r.stderr).toBe(0);
    expect(r.kept).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    // inspect's sample is the first five.
    expect(r.ids).toEqual([
      'rows.jsonl:1',
      'rows.jsonl:1.2',
      'rows.jsonl:2',
      'rows.jsonl:2.2',
      'rows.jsonl:3',
    ]);
  }, 120_000);
});
