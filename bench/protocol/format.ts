// The protocol's table as text: ranked methods first by rank, then the unranked ones (oracles and
// methods tuned by another rule), each with AUC and budget accuracies and their paired intervals.
import { formatTable } from '../../src/cli/table.ts';
import type { MethodReport, ProtocolReport } from './evaluate.ts';
import { describeInformation } from './information.ts';
import type { PairedInterval } from './interval.ts';
import { describeTuning } from './tuning.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}`;
/** A paired difference in accuracy points: "+2.1 [+0.4, +3.9]". */
export const fmtDiff = (d: PairedInterval) => {
  const s = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`;
  return Number.isFinite(d.mean) ? `${s(d.mean)} [${s(d.lo)}, ${s(d.hi)}]` : '—';
};

export function orderedMethods(r: ProtocolReport): MethodReport[] {
  const ranked = r.methods.filter((m) => m.rank !== null).sort((a, b) => a.rank! - b.rank!);
  return [...ranked, ...r.methods.filter((m) => m.rank === null)];
}

export function formatProtocolTable(r: ProtocolReport): string {
  const rows = orderedMethods(r).map((m) => [
    m.rank === null ? (m.unranked?.startsWith('oracle') ? 'oracle' : 'unranked') : String(m.rank),
    m.method,
    pct(m.auc.mean),
    fmtDiff(m.auc.vsBaseline),
    `${fmtDiff(m.auc.vsBestOther)} vs ${m.auc.vsBestOther.other}`,
    ...m.budgets.map((b) => `${pct(b.accuracy)} ${fmtDiff(b.vsBaseline)}`),
    ...m.targets.map((t) => `${t.vsBaseline.ratio.toFixed(2)} (${t.reached}/${r.seeds.length})`),
    String(Math.round(m.information.chargedRollouts)),
  ]);
  const main = formatTable(
    [
      'rank',
      'method',
      'AUC %',
      `AUC − ${r.baseline} [90%]`,
      'AUC − best other [90%]',
      ...(r.methods[0]?.budgets ?? []).map((b) => `acc @${b.share * 100}% (− ${r.baseline})`),
      ...(r.methods[0]?.targets ?? []).map((t) => `rollouts to ${t.share * 100}% ÷ ${r.baseline}`),
      'charged rollouts',
    ],
    rows,
  );
  const info = formatTable(
    ['method', 'information', 'tuning'],
    orderedMethods(r).map((m) => [
      m.method,
      describeInformation(m.information.sources),
      describeTuning(m.tuning),
    ]),
  );
  return [
    main,
    '',
    info,
    '',
    `(seeds ${r.seeds.join(',')}; ranked: methods at ${describeTuning(r.rankingTuning)} reading no oracle column)`,
    ...Object.entries(r.rules).map(([k, v]) => `${k}: ${v}`),
  ].join('\n');
}
