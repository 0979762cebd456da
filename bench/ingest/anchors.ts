// `bench ingest --anchor`: the bench's pipeline as other tools run it, on the same file in the same
// run — the plain per-row Python script (bench/ingest_baseline.py) and Polars (bench/ingest_polars.py,
// where `python3 -c 'import polars'` works) — and each Winnow run's speed as a ratio to theirs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { BenchMapping } from './input-mapping.ts';

const HERE = join(import.meta.dirname, '..');
const ResultSchema = z.object({
  rows: z.number(),
  kept: z.number(),
  seconds: z.number(),
  cpuSeconds: z.number(),
  writer: z.string(),
});
export type AnchorResult = z.infer<typeof ResultSchema>;
export type Anchor = AnchorResult | { skipped: string };

/** The bench's operator chains: its own (`cleaning`) and issue 40's. */
export const BENCH_PIPELINES = {
  cleaning: [
    { op: 'strip_html' },
    { op: 'normalize_unicode', params: { form: 'NFKC' } },
    { op: 'normalize_whitespace' },
    { op: 'length_filter', params: { minWords: 5, maxChars: 4000 } },
    { op: 'special_char_ratio_filter', params: { maxRatio: 0.3 } },
    { op: 'exact_dedup' },
  ],
  issue40: [
    { op: 'normalize_whitespace', params: { newlines: 'collapse' } },
    { op: 'length_filter', params: { minChars: 10, maxChars: 2000 } },
    { op: 'special_char_ratio_filter', params: { maxRatio: 0.25 } },
    { op: 'alnum_ratio_filter', params: { minRatio: 0.5 } },
    { op: 'word_repetition_filter', params: { n: 2, maxRatio: 0.5 } },
    { op: 'exact_dedup' },
  ],
} as const;
/** The bench's pipelines: the two chains above, and `dj10`, a Data-Juicer recipe (dj10.ts). */
export type BenchPipeline = keyof typeof BENCH_PIPELINES | 'dj10';

/** The Python scripts of each pipeline: per-row, then Polars. */
const SCRIPTS: Record<BenchPipeline, readonly [string, string]> = {
  cleaning: ['ingest_baseline.py', 'ingest_polars.py'],
  issue40: ['ingest_baseline.py', 'ingest_polars.py'],
  dj10: ['ingest_dj10.py', 'ingest_dj10.py'],
};

function runScript(
  script: string,
  file: string,
  workDir: string,
  mapping: BenchMapping,
  pipeline: BenchPipeline,
  polars: boolean,
): Anchor {
  const out = mkdtempSync(join(workDir, 'anchor-'));
  try {
    const args = [join(HERE, script), file, out, '--prompt', mapping.prompt, '--pipeline', pipeline];
    // The dj10 script holds both anchors; --engine picks one.
    if (pipeline === 'dj10') args.push('--engine', polars ? 'polars' : 'python');
    if (mapping.id) args.push('--id', mapping.id);
    if (mapping.answer) args.push('--answer', mapping.answer);
    const res = spawnSync('python3', args, { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (res.error || res.status !== 0)
      return { skipped: `${script} failed: ${(res.stderr ?? String(res.error)).trim().split('\n').pop()}` };
    return ResultSchema.parse(JSON.parse(res.stdout.trim().split('\n').pop()!));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const hasPython = (module?: string) => {
  const r = spawnSync('python3', module ? ['-c', `import ${module}`] : ['--version'], { encoding: 'utf8' });
  return !r.error && r.status === 0;
};

/** Both anchors on `file` (each skipped with the reason when its Python or module is missing). */
export function runAnchors(
  file: string,
  workDir: string,
  mapping: BenchMapping,
  pipeline: BenchPipeline,
): { python: Anchor; polars: Anchor } {
  if (!hasPython())
    return { python: { skipped: 'python3 not found' }, polars: { skipped: 'python3 not found' } };
  return {
    python: runScript(SCRIPTS[pipeline][0], file, workDir, mapping, pipeline, false),
    polars: hasPython('polars')
      ? runScript(SCRIPTS[pipeline][1], file, workDir, mapping, pipeline, true)
      : { skipped: "polars is not installed (python3 -c 'import polars' failed)" },
  };
}

/** Rows per second of a run, as a ratio to an anchor's (null when the anchor was skipped). */
export const ratioTo = (rowsPerSec: number, anchor: Anchor): number | null =>
  'skipped' in anchor ? null : rowsPerSec / (anchor.rows / anchor.seconds);
