// Prints vitest's JSON result as one plain closing line ("Tests: N passed, N failed, N skipped"),
// the form CI logs are read for.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.winnow/vitest.json';
const r = JSON.parse(readFileSync(file, 'utf8')) as {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
};
process.stdout.write(
  `Tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped\n`,
);
