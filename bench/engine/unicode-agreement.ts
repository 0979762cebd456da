// Where the engines' string functions and Winnow's JS definitions disagree, code point by code
// point (every scalar value 0..0x10FFFF, surrogates excluded): letter/digit/mark class (\pL\pN\pM),
// JS whitespace (\s), lower-casing, and the length of one character. Prints the counts of
// disagreements and the first few of each, as one JSON line per engine.
// Run: node bench/engine/unicode-agreement.ts duckdb
import { DuckDBInstance } from '@duckdb/node-api';

const ALNUM = /[\p{L}\p{N}\p{M}]/u;
const SPACE = /\s/u;
const which = process.argv[2] ?? 'duckdb';
const codes: number[] = [];
for (let c = 1; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) codes.push(c);
const chars = codes.map((c) => String.fromCodePoint(c));

type Row = { alnum: boolean; space: boolean; lower: string; len: number };
let got: Row[];
if (which === 'duckdb') {
  const db = await DuckDBInstance.create(':memory:', { threads: '2' });
  const con = await db.connect();
  const r = await con.runAndReadAll(`
    SELECT regexp_matches(chr(c::INTEGER), '[\\pL\\pN\\pM]'), regexp_matches(chr(c::INTEGER), '\\s'),
           lower(chr(c::INTEGER)), length(chr(c::INTEGER))
    FROM range(1, 1114112) t(c) WHERE c < 55296 OR c > 57343 ORDER BY c`);
  got = r.getRows().map((x) => ({
    alnum: x[0] as boolean,
    space: x[1] as boolean,
    lower: x[2] as string,
    len: Number(x[3]),
  }));
} else throw new Error('engine: duckdb (Polars: bench/engine/polars-checks.mjs agreement)');
const diffs: Record<string, string[]> = { alnum: [], space: [], lower: [], len: [] };
for (let i = 0; i < codes.length; i++) {
  const ch = chars[i]!;
  const hex = codes[i]!.toString(16);
  const g = got[i]!;
  if (g.alnum !== ALNUM.test(ch)) diffs.alnum!.push(hex);
  if (g.space !== SPACE.test(ch)) diffs.space!.push(hex);
  if (g.lower !== ch.toLowerCase()) diffs.lower!.push(hex);
  if (g.len !== 1) diffs.len!.push(hex);
}
const summary = Object.fromEntries(
  Object.entries(diffs).map(([k, v]) => [k, { count: v.length, first: v.slice(0, 12) }]),
);
console.log(
  JSON.stringify({
    engine: which,
    codePoints: codes.length,
    node: process.versions.unicode,
    disagreements: summary,
  }),
);
