// The Polars side of choosing the engine (docs/architecture.md, "Column-wise engine"). Plain JS:
// nodejs-polars is not a dependency of Winnow. Install it here only, then run:
//   npm install --no-save nodejs-polars@0.26.1 nodejs-polars-linux-x64-gnu@0.26.1
//   node bench/engine/polars-checks.mjs pipeline FILE.jsonl   (issue 40's pipeline, as measure-duckdb.ts)
//   node bench/engine/polars-checks.mjs agreement             (as unicode-agreement.ts, for Polars)
import pl from 'nodejs-polars';

const [what, file] = process.argv.slice(2);
if (what === 'agreement') {
  agreement();
  process.exit(0);
}
if (what !== 'pipeline' || !file)
  throw new Error('usage: node bench/engine/polars-checks.mjs pipeline FILE.jsonl | agreement');
const t0 = performance.now();
const src = pl.scanJson(file).collectSync().withRowIndex('line');
const read = src.height;
const q = pl.col('question').str.replaceAll('\\s+', ' ').str.strip();
const counted = src
  .lazy()
  .withColumns(q.alias('q'))
  .withColumns(
    pl.col('q').str.lengths().cast(pl.Float64).alias('total'),
    pl.col('q').str.replaceAll('[^\\pL\\pN\\pM]', '').str.lengths().cast(pl.Float64).alias('alnum'),
    pl.col('q').str.replaceAll('\\s', '').str.lengths().cast(pl.Float64).alias('nonspace'),
  )
  .filter(
    pl
      .col('total')
      .gtEq(10)
      .and(pl.col('total').ltEq(2000))
      .and(pl.col('nonspace').minus(pl.col('alnum')).divideBy(pl.col('total')).ltEq(0.25))
      .and(pl.col('alnum').divideBy(pl.col('total')).gtEq(0.5)),
  )
  .collectSync();
// Words: lower-cased space tokens with punctuation trimmed from their ends; 2-grams by shifting
// within each row, counted per (row, gram).
const words = counted
  .lazy()
  .select(pl.col('line'), pl.col('q').str.toLowerCase().str.split(' ').alias('w'))
  .explode('w')
  .withColumns(pl.col('w').str.replaceAll('^[^\\pL\\pN]+|[^\\pL\\pN]+$', ''))
  .filter(pl.col('w').neq(pl.lit('')))
  .withColumns(pl.col('w').shift(-1).over('line').alias('next'))
  .filter(pl.col('next').isNotNull())
  .groupBy(['line', pl.concatString([pl.col('w'), pl.col('next')], ' ').alias('g')])
  .agg(pl.count('w').alias('c'))
  .groupBy('line')
  .agg(
    pl.col('c').sum().alias('n'),
    pl.col('c').filter(pl.col('c').gt(1)).sum().cast(pl.Float64).alias('rep'),
  )
  .select(pl.col('line'), pl.col('rep').divideBy(pl.col('n')).alias('ratio'))
  .collectSync();
const kept = counted
  .join(words, { on: 'line', how: 'left' })
  .filter(pl.col('ratio').fillNull(0).ltEq(0.5))
  .sort('line')
  .withColumns(
    pl.col('q').str.toLowerCase().str.replaceAll('\\p{P}', '').str.replaceAll('\\s+', ' ').alias('key'),
  )
  .unique({ subset: 'key', keep: 'first', maintainOrder: true });
console.log(
  JSON.stringify({ engine: 'polars', read, kept: kept.height, seconds: (performance.now() - t0) / 1000 }),
);

/** Code points where Polars' \\pL\\pN\\pM, \\s, lower-casing or length disagree with JS. */
function agreement() {
  const ALNUM = /[\p{L}\p{N}\p{M}]/u;
  const SPACE = /\s/u;
  const chars = [];
  for (let c = 1; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) chars.push(String.fromCodePoint(c));
  const rows = pl
    .DataFrame({ ch: chars })
    .select(
      pl.col('ch').str.replaceAll('[^\\pL\\pN\\pM]', '').str.lengths().alias('alnum'),
      pl.col('ch').str.replaceAll('\\s', '').str.lengths().alias('nonspace'),
      pl.col('ch').str.toLowerCase().alias('lower'),
      pl.col('ch').str.lengths().alias('len'),
    )
    .toRecords();
  const bad = { alnum: 0, space: 0, lower: 0, len: 0 };
  rows.forEach((r, i) => {
    const ch = chars[i];
    if ((r.alnum === 1) !== ALNUM.test(ch)) bad.alnum++;
    if ((r.nonspace === 0) !== SPACE.test(ch)) bad.space++;
    if (r.lower !== ch.toLowerCase()) bad.lower++;
    if (r.len !== 1) bad.len++;
  });
  console.log(JSON.stringify({ engine: 'polars', codePoints: chars.length, disagreements: bad }));
}
