// Checks the generated classes (src/operators/columnar/unicode-classes.ts) in DuckDB against the
// JS predicates over every code point: prints the number of disagreements per class (all 0 = exact).
// Run: node bench/engine/class-agreement.ts
import { DuckDBInstance } from '@duckdb/node-api';
import {
  alnumRanges,
  letterDigitRanges,
  re2Class,
  spaceRanges,
  sqlString,
  unspacedRanges,
} from '../../src/operators/columnar/unicode-classes.ts';

const db = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await db.connect();
const inRanges = (rs: Array<[number, number]>, c: number) => rs.some(([a, b]) => c >= a && c <= b);
const out: Record<string, number> = {};
for (const [name, rs] of Object.entries({
  alnum: alnumRanges(),
  space: spaceRanges(),
  letterDigit: letterDigitRanges(),
  unspaced: unspacedRanges(),
})) {
  const r = await con.runAndReadAll(
    `SELECT c, regexp_matches(chr(c::INTEGER), ${sqlString(re2Class(rs))}) FROM range(1, 1114112) t(c)
     WHERE c < 55296 OR c > 57343 ORDER BY c`,
  );
  let bad = 0;
  for (const [c, m] of r.getRows()) if ((m as boolean) !== inRanges(rs, Number(c))) bad++;
  out[name] = bad;
}
console.log(JSON.stringify({ disagreements: out }));
