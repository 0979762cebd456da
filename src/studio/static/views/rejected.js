import { get } from '../api.js';
import { cellText, errorLine, h } from '../dom.js';

/** Rejected rows grouped by step and reason, with counts and examples linked to their source line. */
export async function showRejected(root, { parts }) {
  const [table] = parts;
  const r = await get('/api/rejected', { table });
  root.append(
    h('h1', {}, `Rejected rows (${table})`),
    h('p', { class: 'note' }, `${r.total} rows in ${r.groups.length} groups`),
  );
  for (const g of r.groups) {
    const box = h(
      'div',
      { class: 'response', 'data-testid': 'rejected-group' },
      h('strong', {}, `${g.step} · ${g.count}`),
      ' ',
      h('span', {}, g.reason),
    );
    for (const ex of g.examples) {
      const src = h('div', {});
      const link =
        ex.file && ex.row > 0
          ? h(
              'a',
              {
                href: '#',
                onclick: async (e) => {
                  e.preventDefault();
                  try {
                    const s = await get('/api/source', { file: ex.file, line: ex.row, table });
                    src.replaceChildren(
                      h(
                        'pre',
                        {},
                        s.lines
                          .map((l) => `${l.line === ex.row ? '▶' : ' '} ${l.line}: ${l.text}`)
                          .join('\n'),
                      ),
                    );
                  } catch (err) {
                    src.replaceChildren(errorLine(err));
                  }
                },
              },
              `${ex.file}:${ex.row}`,
            )
          : h('span', { class: 'note' }, ex.file || 'no source file');
      box.append(
        h('div', {}, link, ' ', h('code', {}, cellText(ex.row_id)), ' — ', cellText(ex.payload)),
        src,
      );
    }
    root.append(box);
  }
}
