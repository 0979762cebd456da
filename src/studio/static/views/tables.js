import { get } from '../api.js';
import { grid, h } from '../dom.js';

const VIEW_OF = { tasks: 'table', experiences: 'groups', rejected: 'rejected' };

/** Every table with rows, version, versions and tags; a name opens the view that suits it. */
export async function showTables(root, { go }) {
  const { tables } = await get('/api/tables');
  root.append(h('h1', {}, 'Tables'));
  if (tables.length === 0) root.append(h('p', { class: 'note' }, 'No tables in this database yet.'));
  root.append(
    grid(['name', 'kind', 'rows', 'version', 'versions', 'tags'], tables, {
      testid: 'tables',
      render: (c, t) => {
        if (c === 'name')
          return h(
            'a',
            {
              href: '#',
              'data-testid': `table-${t.name}`,
              onclick: (e) => {
                e.preventDefault();
                go([VIEW_OF[t.kind] ?? 'table', t.name]);
              },
            },
            t.name,
          );
        if (c === 'tags') return t.tags.join(', ');
        if (c === 'kind' && t.kind === 'experiences')
          return h(
            'span',
            {},
            'experiences ',
            h('a', { href: `#/table/${encodeURIComponent(t.name)}` }, '(rows)'),
          );
        return undefined;
      },
    }),
  );
}
