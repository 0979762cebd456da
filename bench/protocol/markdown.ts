// The protocol's table as Markdown, as docs/selection-zoo.md prints it: ranked methods by rank, then
// the unranked ones; AUC and accuracy at each budget with paired 90% intervals against the baseline,
// AUC against the best other, rollouts to the targets, information charged, tuning.
import type { ProtocolReport } from './evaluate.ts';
import { fmtDiff, orderedMethods } from './format.ts';
import { describeTuning } from './tuning.ts';

const pct = (x: number) => (x * 100).toFixed(1);

export function protocolMarkdown(r: ProtocolReport): string {
  const first = r.methods[0]!;
  const head = [
    'rank',
    'method',
    'AUC %',
    `AUC − ${r.baseline} [90%]`,
    'AUC − best other [90%]',
    ...first.budgets.map((b) => `acc @${b.share * 100}% B (− ${r.baseline} [90%])`),
    ...first.targets.map((t) => `rollouts to ${t.share * 100}% ÷ ${r.baseline} (reached)`),
    'charged rollouts',
    'tuning',
  ];
  const rows = orderedMethods(r).map((m) => [
    m.rank === null ? (m.unranked?.startsWith('oracle') ? 'oracle' : 'unranked') : String(m.rank),
    m.method,
    pct(m.auc.mean),
    fmtDiff(m.auc.vsBaseline),
    `${fmtDiff(m.auc.vsBestOther)} (${m.auc.vsBestOther.other})`,
    ...m.budgets.map((b) => `${pct(b.accuracy)} (${fmtDiff(b.vsBaseline)})`),
    ...m.targets.map(
      (t) =>
        `${t.vsBaseline.ratio.toFixed(2)} [${t.vsBaseline.lo.toFixed(2)}, ${t.vsBaseline.hi.toFixed(2)}] (${t.reached}/${r.seeds.length})`,
    ),
    String(Math.round(m.information.chargedRollouts)),
    describeTuning(m.tuning),
  ]);
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
