import { get } from '../api.js';
import { grid, h } from '../dom.js';

/** The whole edit log, newest first (what `winnow inspect studio_edits` shows). */
export async function showEdits(root) {
  const { edits } = await get('/api/edits');
  root.append(h('h1', {}, 'Edits'));
  const rows = edits
    .slice()
    .reverse()
    .map((e) => ({
      when: new Date(e.at).toISOString().slice(0, 19),
      user: e.user,
      kind: e.kind,
      table: e.table,
      row: e.rowId,
      reason: e.reason,
      versions: `v${e.versionBefore}→v${e.versionAfter}`,
      undone: e.undoneBy ? 'yes' : '',
    }));
  root.append(
    grid(['when', 'user', 'kind', 'table', 'row', 'reason', 'versions', 'undone'], rows, {
      testid: 'all-edits',
      render: (c, r) =>
        c === 'row' && r.kind !== 'preference' && r.kind !== 'reward'
          ? h('a', { href: `#/task/${encodeURIComponent(r.table)}/${encodeURIComponent(r.row)}` }, r.row)
          : undefined,
    }),
  );
}
