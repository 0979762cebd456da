// Prints the protocol table(s) of a bench's --json output as Markdown (docs/selection-zoo.md):
//   npx node bench/protocol/to-markdown.ts curriculum.json     (bench curriculum: one table)
//   npx node bench/protocol/to-markdown.ts selection.json      (bench selection: one per scenario)
//   npx node bench/protocol/to-markdown.ts sweep.json [A,B…]   (bench selection --sweep: one row per
//                                                               point; A,B… Winnow's methods to place)
import { readFileSync } from 'node:fs';
import type { SweepResult } from '../selection/sweep.ts';
import { sweepSummaryMarkdown } from '../selection/sweep-format.ts';
import type { ProtocolReport } from './evaluate.ts';
import { protocolMarkdown } from './markdown.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write(
    'usage: to-markdown.ts FILE.json (the --json output of bench curriculum or bench selection)\n',
  );
  process.exit(2);
}
const out = JSON.parse(readFileSync(file, 'utf8')) as {
  protocol?: ProtocolReport;
  scenarios?: Array<{ scenario: string; protocol: ProtocolReport }>;
  points?: SweepResult['points'];
};
const winnow = (process.argv[3] ?? 'shared_ability,shared_ability+speed,headroom').split(',');
const tables = out.protocol
  ? [protocolMarkdown(out.protocol)]
  : out.points
    ? [sweepSummaryMarkdown(out as SweepResult, winnow)]
    : (out.scenarios ?? []).map((s) => `#### ${s.scenario}\n\n${protocolMarkdown(s.protocol)}`);
if (tables.length === 0) {
  process.stderr.write(
    `${file}: no protocol table (expected the --json output of bench curriculum or bench selection)\n`,
  );
  process.exit(1);
}
process.stdout.write(`${tables.join('\n\n')}\n`);
