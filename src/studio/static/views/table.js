import { get, post } from '../api.js';
import { cellText, errorLine, grid, h } from '../dom.js';

const PAGE = 25;

/**
 * The task browser: a page of rows with a --where filter, full-text search on the prompt, sorting
 * by any column and paging; a version picker reads an older version. Nothing loads the table whole.
 */
export async function showTable(root, { parts, params, go, info }) {
  const name = parts[0];
  const state = {
    where: params.get('where') ?? '',
    q: params.get('q') ?? '',
    sort: params.get('sort') ?? '',
    desc: params.get('desc') === '1',
    offset: Number(params.get('offset') ?? 0),
    version: params.get('version') ?? '',
  };
  const meta = await get('/api/table', { table: name });
  const nav = (patch) => go(['table', name], { ...state, desc: state.desc ? 1 : '', ...patch });
  const where = h('input', {
    type: 'text',
    size: 50,
    value: state.where,
    placeholder: "where: taskset = 'gsm8k' AND answer IS NOT NULL",
    'data-testid': 'where',
  });
  const q = h('input', {
    type: 'text',
    size: 24,
    value: state.q,
    placeholder: meta.ftsIndex ? 'search prompt (full text)' : 'search prompt (substring)',
    'data-testid': 'search',
  });
  const version = h(
    'select',
    { 'data-testid': 'version', onchange: (e) => nav({ version: e.target.value, offset: 0 }) },
    h('option', { value: '' }, `latest (v${meta.version})`),
    meta.versionList
      .slice()
      .reverse()
      .map((v) =>
        h(
          'option',
          { value: String(v.version), selected: String(v.version) === state.version },
          `v${v.version} · ${v.timestamp.slice(0, 19)}`,
        ),
      ),
    meta.tagList.map((t) =>
      h('option', { value: t.tag, selected: t.tag === state.version }, `tag ${t.tag} → v${t.version}`),
    ),
  );
  const apply = () => nav({ where: where.value, q: q.value, offset: 0 });
  for (const input of [where, q]) input.addEventListener('keydown', (e) => e.key === 'Enter' && apply());
  root.append(
    h(
      'h1',
      {},
      `Table ${name}`,
      ' ',
      h('span', { class: 'pill', 'data-testid': 'table-version' }, `v${meta.version}`),
    ),
    h(
      'p',
      { class: 'note' },
      `${meta.rows.toLocaleString('en-US')} rows · ${meta.versions} versions · ${meta.kind}`,
    ),
    h(
      'form',
      {
        class: 'bar',
        onsubmit: (e) => {
          e.preventDefault();
          apply();
        },
      },
      where,
      q,
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'apply' }, 'Filter'),
      version,
    ),
  );
  const body = h('div', {});
  root.append(body);
  let page;
  try {
    page = await get('/api/rows', {
      table: name,
      where: state.where,
      q: state.q,
      sort: state.sort,
      desc: state.desc ? 1 : '',
      offset: state.offset,
      limit: PAGE,
      version: state.version,
    });
  } catch (err) {
    body.append(errorLine(err));
    return;
  }
  const count = h('span', { class: 'note', 'data-testid': 'count' }, '…');
  get('/api/count', { table: name, where: state.where, q: state.q, version: state.version })
    .then((c) => (count.textContent = `${c.count.toLocaleString('en-US')} matching`))
    .catch(() => (count.textContent = ''));
  const buildIndex = async (e, column) => {
    e.target.disabled = true;
    e.target.textContent = 'building…';
    try {
      await post('/api/index', { table: name, ...(column ? { column } : {}) });
      nav({});
    } catch (err) {
      body.prepend(errorLine(err));
    }
  };
  // A scalar index on a filtered column: filters on it then read the index, not every row.
  const indexable = meta.schema.filter(
    (f) => /^(Utf8|LargeUtf8|Bool|U?Int|Float)/i.test(f.type) && f.name !== 'prompt',
  );
  const indexColumn = h(
    'select',
    { 'data-testid': 'index-column' },
    indexable.map((f) => h('option', { value: f.name }, f.name)),
  );
  const indexPicker = h(
    'span',
    {},
    indexColumn,
    h('button', { onclick: (e) => buildIndex(e, indexColumn.value) }, 'Index column'),
  );
  const columns = page.rows.length > 0 ? Object.keys(page.rows[0]) : meta.schema.map((f) => f.name);
  const from = state.offset + 1;
  const to = state.offset + page.rows.length;
  body.append(
    h(
      'div',
      { class: 'bar' },
      h(
        'button',
        {
          'data-testid': 'prev',
          disabled: state.offset === 0,
          onclick: () => nav({ offset: Math.max(0, state.offset - PAGE) }),
        },
        '← prev',
      ),
      h('span', { 'data-testid': 'range' }, page.rows.length === 0 ? 'no rows' : `rows ${from}–${to}`),
      h(
        'button',
        {
          'data-testid': 'next',
          disabled: !page.hasMore,
          onclick: () => nav({ offset: state.offset + PAGE }),
        },
        'next →',
      ),
      count,
      page.search ? h('span', { class: 'note' }, `search: ${page.search}`) : null,
      state.sort ? h('span', { class: 'note' }, `sorted by ${state.sort}${state.desc ? ' ↓' : ' ↑'}`) : null,
      meta.kind === 'tasks' && !meta.ftsIndex && !info.readOnly
        ? h('button', { 'data-testid': 'build-index', onclick: (e) => buildIndex(e) }, 'Build search index')
        : null,
      info.readOnly ? null : indexPicker,
    ),
    grid(columns, page.rows, {
      testid: 'rows',
      onHeader: (c) => nav({ sort: c, desc: state.sort === c && !state.desc ? 1 : '', offset: 0 }),
      render: (c, r) =>
        c === 'id' && meta.kind === 'tasks'
          ? h(
              'a',
              {
                href: `#/task/${encodeURIComponent(name)}/${encodeURIComponent(r.id)}`,
                'data-testid': `open-${r.id}`,
              },
              cellText(r.id),
            )
          : undefined,
    }),
  );
}
