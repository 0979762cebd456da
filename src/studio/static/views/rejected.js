import { get } from '../api.js';
import { cellText, errorLine, h } from '../dom.js';

/** The source lines around an example, opened in place. */
function sourceLink(ex, table, into) {
  if (!ex.file || !(ex.row > 0)) return h('span', { class: 'note' }, ex.file || 'no source file');
  return h(
    'a',
    {
      href: '#',
      onclick: async (e) => {
        e.preventDefault();
        try {
          const s = await get('/api/source', { file: ex.file, line: ex.row, table });
          into.replaceChildren(
            h(
              'pre',
              {},
              s.lines.map((l) => `${l.line === ex.row ? '▶' : ' '} ${l.line}: ${l.text}`).join('\n'),
            ),
          );
        } catch (err) {
          into.replaceChildren(errorLine(err));
        }
      },
    },
    `${ex.file}:${ex.row}`,
  );
}

/**
 * Rejected rows grouped by step and reason, with counts and examples linked to their source line;
 * a run picker narrows them to one run, and a group the run dropped whole opens as a group.
 */
export async function showRejected(root, { parts, params, go }) {
  const table = parts[0] || 'rejected';
  const run = params.get('run') ?? '';
  const r = await get('/api/rejected', { table, run });
  const picker = h(
    'select',
    { 'data-testid': 'run-picker', onchange: (e) => go(['rejected', table], { run: e.target.value }) },
    h('option', { value: '' }, `all runs (${r.runs.reduce((n, x) => n + x.count, 0)} rows)`),
    r.runs.map((x) =>
      h(
        'option',
        { value: x.runId, selected: x.runId === run },
        `${x.runId || '(no run)'} · ${x.count} rows`,
      ),
    ),
  );
  root.append(
    h('h1', {}, `Rejected rows (${table})`),
    h('div', { class: 'bar' }, 'run:', picker),
    h(
      'p',
      { class: 'note', 'data-testid': 'rejected-total' },
      `${r.total} rows in ${r.groups.length} ${r.groups.length === 1 ? 'group' : 'groups'}${run ? ` from run ${run}` : ''}`,
    ),
  );
  for (const g of r.groups) {
    const box = h(
      'div',
      { class: 'response', 'data-testid': 'rejected-group' },
      h('strong', {}, `${g.step} · ${g.count}`),
      ' ',
      h('span', { 'data-testid': 'reason' }, g.reason),
    );
    for (const ex of g.examples) {
      const src = h('div', {});
      const group = ex.group
        ? h(
            'a',
            {
              href: `#/group/${encodeURIComponent(ex.group.table)}/${encodeURIComponent(ex.group.groupId)}`,
              'data-testid': `open-group-${ex.group.groupId}`,
            },
            `group ${ex.group.groupId}`,
          )
        : null;
      box.append(
        h(
          'div',
          {},
          sourceLink(ex, table, src),
          ' ',
          h('code', {}, cellText(ex.row_id)),
          group ? [' · ', group] : null,
          ' — ',
          cellText(ex.payload),
        ),
        src,
      );
    }
    root.append(box);
  }
}
