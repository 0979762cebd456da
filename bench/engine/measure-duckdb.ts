// Issue 40's pipeline in DuckDB SQL over a JSONL file of {question, answer}: whitespace collapse,
// length 10..2000, special-char ratio <= 0.25, alnum ratio >= 0.5, word 2-gram repetition <= 0.5,
// exact dedup (first row of each key kept). Prints rows in/out and wall seconds as one JSON line.
// Run: node bench/engine/measure-duckdb.ts FILE.jsonl [THREADS]
import { DuckDBInstance } from '@duckdb/node-api';

const [file, threads] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/engine/measure-duckdb.ts FILE.jsonl [THREADS]');
const t0 = performance.now();
const db = await DuckDBInstance.create(':memory:', { threads: threads ?? '2' });
const con = await db.connect();
const sql = `
WITH src AS (
  SELECT row_number() OVER () AS line, question, answer
  FROM read_json('${file}', format='newline_delimited', columns={question:'VARCHAR', answer:'VARCHAR'})
), norm AS (
  SELECT line, answer, trim(regexp_replace(question, '[\\s\\x{a0}\\x{3000}]+', ' ', 'g')) AS q FROM src
), counted AS (
  SELECT *, length(q) AS total,
    length(regexp_replace(q, '[^\\pL\\pN\\pM]', '', 'g')) AS alnum,
    length(q) - length(regexp_replace(q, '\\s', '', 'g')) AS space
  FROM norm
), filtered AS (
  SELECT * FROM counted
  WHERE total BETWEEN 10 AND 2000
    AND (total = 0 OR (total - alnum - space) / total <= 0.25)
    AND (total > 0 AND alnum / total >= 0.5)
), words AS (
  SELECT line, list_filter(list_transform(string_split(lower(q), ' '),
      w -> regexp_replace(w, '^[^\\pL\\pN]+|[^\\pL\\pN]+$', '', 'g')), w -> w <> '') AS ws
  FROM filtered
), grams AS (
  SELECT line, len(ws) - 1 AS n, unnest(list_transform(range(1, len(ws)), i -> ws[i] || ' ' || ws[i + 1])) AS g
  FROM words WHERE len(ws) >= 2
), rep AS (
  SELECT line, sum(c) FILTER (WHERE c > 1) / any_value(n) AS ratio
  FROM (SELECT line, any_value(n) AS n, g, count(*) AS c FROM grams GROUP BY line, g) GROUP BY line
), kept AS (
  SELECT f.line, f.q, f.answer,
    regexp_replace(regexp_replace(lower(f.q), '[\\p{P}]', '', 'g'), '\\s+', ' ', 'g') AS key
  FROM filtered f LEFT JOIN rep r USING (line)
  WHERE coalesce(r.ratio, 0) <= 0.5
)
SELECT count(*) AS kept FROM (
  SELECT line FROM kept QUALIFY row_number() OVER (PARTITION BY key ORDER BY line) = 1
)`;
const reader = await con.runAndReadAll(sql);
const kept = Number(reader.getRows()[0]![0]);
const read = Number(
  (
    await con.runAndReadAll(`SELECT count(*) FROM read_json('${file}', format='newline_delimited')`)
  ).getRows()[0]![0],
);
console.log(JSON.stringify({ engine: 'duckdb', read, kept, seconds: (performance.now() - t0) / 1000 }));
