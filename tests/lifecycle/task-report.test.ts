import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/core/task.ts';
import {
  MAX_REASON_GROUPS,
  OTHER_REASONS,
  type RejectedRowInput,
  TaskReportCollector,
  textLength,
} from '../../src/lifecycle/pipeline/report/collector.ts';
import {
  LENGTH_BINS,
  lengthBin,
  lengthBinRange,
  SCORE_BINS,
} from '../../src/lifecycle/pipeline/report/histogram.ts';
import { renderTaskReport } from '../../src/lifecycle/pipeline/report/render.ts';
import type { TaskPipelineReport } from '../../src/lifecycle/pipeline/task-pipeline.ts';
import { emptyMetrics, reasonClass, type StepMetrics } from '../../src/operators/step-metrics.ts';
import { countChars, countWords } from '../../src/operators/task/text-stats.ts';

const task = (id: string, text: Partial<Task>, difficulty?: number, taskset = 'a'): Task => ({
  id,
  taskset,
  features: difficulty === undefined ? {} : { difficulty },
  meta: {},
  ...text,
});

/** Six tasks whose lengths and difficulties land in known bins. */
const landed: Task[] = [
  task('t1', { prompt: 'hello world' }, 0.1), // 11 chars, 2 words, difficulty bin 2
  task('t2', { prompt: 'x'.repeat(25) }, 1), // 25 chars, 1 word, difficulty 1 → last bin
  // taskText joins turns as `role: content` → "user: what is 2 + 2": 19 chars, 6 words
  task('t3', { messages: [{ role: 'user', content: 'what is 2 + 2' }] }),
  task('t4', { prompt: '' }, 1.5, 'b'), // 0 chars, 0 words, above the [0, 1] range
  task('t5', { prompt: 'ab '.repeat(400) }, -0.2), // 1,200 chars, 400 words, below the range
  task('t6', { prompt: '🙂🙂' }, 0.05), // 2 code points, 1 word, difficulty bin 1
];

const bins = (size: number, counts: Record<number, number>) => {
  const b = new Array<number>(size).fill(0);
  for (const [i, c] of Object.entries(counts)) b[Number(i)] = c;
  return b;
};

const rejections: RejectedRowInput[] = [
  {
    step: 'length_filter',
    reason: 'too many words: 120 > maxWords 80',
    file: 'a.jsonl',
    row: 3,
    rowId: 't_aaaaaaaa',
    payload: `{"prompt":"${'y'.repeat(1000)}"}`,
  },
  { step: 'map', reason: "missing column 'questoin' (the row has: question, answer)", file: 'b.csv', row: 2 },
  { step: 'length_filter', reason: 'too many words: 95 > maxWords 80', file: 'a.jsonl', row: 7 },
  { step: 'length_filter', reason: 'too few words: 1 < minWords 2', file: 'a.jsonl', row: 9 },
  { step: 'length_filter', reason: 'too many words: 81 > maxWords 80', file: 'a.jsonl', row: 11 },
  { step: 'length_filter', reason: 'too many words: 300 > maxWords 80', file: 'a.jsonl', row: 12 },
  { step: 'near_dedup', reason: 'duplicate of t_3fa2bb01 (similarity 0.91)', rowId: 't_0123abcd' },
];

describe('task report collector', () => {
  it('bins lengths on round log-scale edges and covers every value', () => {
    expect([0, 9, 10, 14, 15, 19, 20, 99, 100, 149, 150, 999, 1000, 1499, 1500, 2000].map(lengthBin)).toEqual(
      [0, 9, 10, 10, 11, 11, 12, 27, 28, 28, 29, 45, 46, 46, 47, 48],
    );
    expect(lengthBin(999_999_999)).toBe(LENGTH_BINS - 2);
    expect(lengthBin(5e12)).toBe(LENGTH_BINS - 1);
    expect(lengthBinRange(11)).toEqual([15, 20]);
    expect(lengthBinRange(12)).toEqual([20, 25]);
    expect(lengthBinRange(46)).toEqual([1000, 1500]);
    expect(LENGTH_BINS).toBe(10 + 8 * 18 + 1);
    expect(lengthBinRange(LENGTH_BINS - 1)).toEqual([1e9, Number.POSITIVE_INFINITY]);
  });

  it('counts characters and words exactly as length_filter does', () => {
    const texts = [
      '',
      ' ',
      'a',
      '  two  words ',
      'tab\tand\nnewline',
      'nbsp\u00a0ideographic\u3000space',
      '🙂🙂 x',
      'é\u0301',
      '我喜欢吃苹果。你呢？',
      'GPT は 強い',
    ];
    expect(texts.map(textLength)).toEqual(texts.map((t) => ({ chars: countChars(t), words: countWords(t) })));
    expect(texts.map((t) => textLength(t).words)).toEqual([0, 0, 1, 2, 3, 3, 2, 1, 6, 3]);
    expect(textLength('🙂🙂 x').chars).toBe(4);
  });

  it('summarises landed tasks: exact bins, stats, difficulty out of range, tasksets', () => {
    const c = new TaskReportCollector();
    c.landed(landed.slice(0, 2));
    c.landed(landed.slice(2));
    const s = c.summary();
    expect(s.tasks).toBe(6);
    // chars 11, 25, 19, 0, 1200, 2 → bins 10 (10–14), 13 (25–29), 11 (15–19), 0, 46 (1,000–1,499), 2
    expect(s.promptChars).toEqual({
      count: 6,
      min: 0,
      max: 1200,
      mean: (11 + 25 + 19 + 0 + 1200 + 2) / 6,
      bins: bins(LENGTH_BINS, { 0: 1, 2: 1, 10: 1, 11: 1, 13: 1, 46: 1 }),
    });
    // words 2, 1, 6, 0, 400, 1 → bins 2, 1 ×2, 6, 0, 34 (400–449)
    expect(s.promptWords.bins).toEqual(bins(LENGTH_BINS, { 0: 1, 1: 2, 2: 1, 6: 1, 34: 1 }));
    expect([s.promptWords.min, s.promptWords.max]).toEqual([0, 400]);
    expect(s.difficulty).toEqual({
      count: 5,
      min: -0.2,
      max: 1.5,
      mean: (0.1 + 1 + 1.5 - 0.2 + 0.05) / 5,
      bins: bins(SCORE_BINS, { 1: 1, 2: 1, [SCORE_BINS - 1]: 1 }),
      below: 1,
      above: 1,
    });
    expect(s.withoutDifficulty).toBe(1);
    expect(s.tasksets).toEqual([
      { taskset: 'a', count: 5 },
      { taskset: 'b', count: 1 },
    ]);
    expect(s.rejected).toBe(0);
    expect(s.steps).toEqual([]);
  });

  it('groups rejections per step by reason class with up to three full examples each', () => {
    const c = new TaskReportCollector();
    c.rejected(rejections.slice(0, 3));
    c.rejected(rejections.slice(3));
    const s = c.summary();
    expect(s.rejected).toBe(7);
    expect(s.steps.map((x) => [x.step, x.count])).toEqual([
      ['length_filter', 5],
      ['map', 1],
      ['near_dedup', 1],
    ]);
    const lf = s.steps[0]!;
    expect(lf.reasons.map((g) => [g.reason, g.count])).toEqual([
      ['too many words: # > maxWords #', 4],
      ['too few words: # < minWords #', 1],
    ]);
    expect(lf.reasons[0]!.examples).toEqual([
      {
        reason: 'too many words: 120 > maxWords 80',
        file: 'a.jsonl',
        row: 3,
        rowId: 't_aaaaaaaa',
        payload: `{"prompt":"${'y'.repeat(289)}… [713 more chars]`,
      },
      { reason: 'too many words: 95 > maxWords 80', file: 'a.jsonl', row: 7, rowId: '', payload: '' },
      { reason: 'too many words: 81 > maxWords 80', file: 'a.jsonl', row: 11, rowId: '', payload: '' },
    ]);
    expect(s.steps[1]!.reasons).toEqual([
      {
        reason: reasonClass("missing column 'questoin' (the row has: question, answer)"),
        count: 1,
        examples: [
          {
            reason: "missing column 'questoin' (the row has: question, answer)",
            file: 'b.csv',
            row: 2,
            rowId: '',
            payload: '',
          },
        ],
      },
    ]);
    expect(s.steps[2]!.reasons[0]!.reason).toBe('duplicate of <id> (similarity #)');
    // Grouping is `reasonClass`'s (summaries elsewhere use the same), the examples keep the detail.
    expect(s.steps[1]!.reasons[0]!.reason).not.toBe(s.steps[1]!.reasons[0]!.examples[0]!.reason);
    expect(s.steps[2]!.reasons[0]!.examples[0]).toEqual({
      reason: 'duplicate of t_3fa2bb01 (similarity 0.91)',
      file: '',
      row: -1,
      rowId: 't_0123abcd',
      payload: '',
    });
  });

  it('stays bounded over 10k rejected rows: capped groups, examples and payloads', () => {
    const c = new TaskReportCollector();
    // Reasons with unique words that `reasonClass` cannot blank: each would be its own class.
    const letters = (i: number) =>
      i.toString(26).replace(/./g, (d) => String.fromCharCode(97 + parseInt(d, 26)));
    const huge = 'z'.repeat(10_000);
    for (let i = 0; i < 10_000; i++) {
      c.rejected([{ step: 'label_check', reason: `unknown label ${letters(i)}`, payload: huge }]);
      c.rejected([{ step: 'length_filter', reason: `too long: ${i} chars`, file: 'big.jsonl', row: i + 1 }]);
    }
    const s = c.summary();
    expect(s.rejected).toBe(20_000);
    const labels = s.steps[0]!;
    expect(labels.count).toBe(10_000);
    expect(labels.reasons).toHaveLength(MAX_REASON_GROUPS + 1);
    const other = labels.reasons[0]!;
    expect([other.reason, other.count]).toEqual([OTHER_REASONS, 10_000 - MAX_REASON_GROUPS]);
    expect(other.examples.map((e) => e.reason)).toEqual([
      `unknown label ${letters(50)}`,
      `unknown label ${letters(51)}`,
      `unknown label ${letters(52)}`,
    ]);
    expect(labels.reasons.slice(1).every((g) => g.count === 1 && g.examples.length === 1)).toBe(true);
    expect(other.examples[0]!.payload).toBe(`${'z'.repeat(300)}… [9700 more chars]`);
    const lengths = s.steps[1]!;
    expect(lengths.reasons).toHaveLength(1);
    expect(lengths.reasons[0]!.count).toBe(10_000);
    expect(lengths.reasons[0]!.examples.map((e) => `${e.file}:${e.row}`)).toEqual([
      'big.jsonl:1',
      'big.jsonl:2',
      'big.jsonl:3',
    ]);
  });
});

const metrics = (step: string, op: string, rowsIn: number, rowsOut: number, reasons = {}): StepMetrics => ({
  ...emptyMetrics(step, op, 'filter'),
  rowsIn,
  rowsOut,
  dropped: rowsIn - rowsOut,
  reasons,
  ms: 12.345,
});

function reportOf(c: TaskReportCollector, config: unknown = { name: 'demo' }) {
  const report: TaskPipelineReport = {
    runId: '20260101T000000-abcdef12-7',
    reportFile: null,
    name: 'demo <pipeline>',
    dbDir: '/data/db',
    table: 'tasks',
    files: ['/data/in.jsonl'],
    seed: 7,
    rowsRead: 1000,
    inputErrors: 1,
    rejected: 7,
    tasksOut: 6,
    inserted: 6,
    updated: 0,
    unchanged: 0,
    tableVersion: 3,
    tag: 'run-20260101T000000-abcdef12-7',
    totalTasks: 6,
    steps: [
      metrics('read', 'read', 1000, 1000),
      metrics('length_filter', 'length_filter', 1000, 900, { 'too many words: # > maxWords #': 100 }),
      metrics('by_domain/long/near_dedup', 'near_dedup', 900, 894, { 'duplicate of <id> (similarity #)': 6 }),
    ],
    durationMs: 3456,
    warnings: ['/data/empty.jsonl: no rows read'],
  };
  return renderTaskReport({ ...report, summary: c.summary(), config });
}

describe('task report page', () => {
  const collector = () => {
    const c = new TaskReportCollector();
    c.landed(landed);
    c.rejected(rejections);
    c.rejected([
      {
        step: 'require_answer',
        reason: 'no answer in <script>alert(1)</script>',
        file: 'in.jsonl',
        row: 4,
        payload: '{"prompt":"<script>document.title=1</script>"}',
      },
    ]);
    return c;
  };

  it('shows the run, one row per operator and the grouped reasons with their examples', () => {
    const html = reportOf(collector());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<h1>Winnow task pipeline: demo &lt;pipeline&gt;</h1>');
    expect(html).toContain('<tr><th>rows read</th><td>1,000</td></tr>');
    expect(html).toContain('tag <code>run-20260101T000000-abcdef12-7</code>');
    expect(html).toContain('<tr><th>duration</th><td>3.5 s</td></tr>');
    expect(html).toContain(
      '<tr><td class="step"><code>length_filter</code></td><td class="n">1,000</td><td class="n">900</td><td class="n">100</td>',
    );
    expect(html).toContain(
      '<tr><td class="step"><code>by_domain/long/near_dedup</code> <span class="muted">near_dedup</span></td><td class="n">900</td><td class="n">894</td><td class="n">6</td>',
    );
    expect(html.match(/<tr><td class="step">/g)).toHaveLength(3);
    expect(html).toContain('<tr><td><code>b</code></td><td class="n">1</td>');
    expect(html).toContain('<summary>too many words: # &gt; maxWords #<span class="cnt">×4</span></summary>');
    expect(html).toContain('a.jsonl:7</span><br>too many words: 95 &gt; maxWords 80');
    expect(html).toContain('<li class="warn">/data/empty.jsonl: no rows read</li>');
  });

  it('escapes reasons, payloads and config and loads nothing from the network', () => {
    const html = reportOf(collector(), { note: '</pre><script>x()</script>', list: [1, 2] });
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('no answer in &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('{&quot;prompt&quot;:&quot;&lt;script&gt;document.title=1&lt;/script&gt;&quot;}');
    expect(html).toContain('&quot;note&quot;: &quot;&lt;/pre&gt;&lt;script&gt;x()&lt;/script&gt;&quot;');
    expect(html).not.toMatch(/\b(src|href)\s*=/i);
    expect(html).not.toMatch(/https?:/i);
    expect(html).not.toMatch(/<link|@import|url\(/i);
  });

  it('draws one SVG histogram each for characters, words and difficulty over the occupied bins', () => {
    const html = reportOf(collector());
    expect(html.match(/<svg /g)).toHaveLength(3);
    expect([...html.matchAll(/<svg [^>]*aria-label="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'Prompt length (characters)',
      'Prompt length (words)',
      'Difficulty (features.difficulty)',
    ]);
    const chars = html.slice(html.indexOf('aria-label="Prompt length (characters)"'), html.indexOf('</svg>'));
    // bins 0 … 46 (0 to 1,499 characters): 47 bars, each with its range and count on hover
    expect(chars.match(/<rect /g)).toHaveLength(47);
    expect(chars).toContain('<title>10–14: 1</title>');
    expect(chars).toContain('<title>25–29: 1</title>');
    expect(chars).toContain('<title>1,000–1,499: 1</title>');
    expect(html).toContain('<title>0.95–1.00 (inclusive): 1</title>');
    expect(html).toContain('not drawn: 1 without a difficulty · 1 below 0 and 1 above 1</p>');
  });

  it('says so when nothing landed and nothing was rejected, drawing no empty charts', () => {
    const html = reportOf(new TaskReportCollector());
    expect(html).not.toContain('<svg');
    expect(html.match(/<p class="empty">no data<\/p>/g)).toHaveLength(3);
    expect(html).toContain('<p class="empty">no rows were rejected</p>');
  });
});
