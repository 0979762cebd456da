// A tiny element builder: h('td', { class: 'num' }, '3'). Text is always set as text, never HTML.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Number.POSITIVE_INFINITY)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** A cell's text: numbers rounded to 4 significant digits, objects as JSON; no value reads as empty, never "null". */
export function cellText(v) {
  if (v === null || v === undefined || v === 'null' || v === 'undefined') return '';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** An API error as a visible line (message, field, hint). */
export function errorLine(err) {
  const parts = [err.message];
  if (err.field) parts.push(`(field: ${err.field})`);
  if (err.hint) parts.push(`— ${err.hint}`);
  return h('div', { class: 'error', role: 'alert', 'data-testid': 'error' }, parts.join(' '));
}

/** A table of objects: columns in order; `render(col, row)` may return a node for a cell. */
export function grid(columns, rows, { render, testid, onHeader } = {}) {
  return h(
    'table',
    { class: 'grid', 'data-testid': testid },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) =>
          h(
            'th',
            { class: onHeader ? 'sortable' : undefined, onclick: onHeader ? () => onHeader(c) : undefined },
            c,
          ),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((r) =>
        h(
          'tr',
          {},
          columns.map((c) => {
            const custom = render?.(c, r);
            const v = r[c];
            // Times stored as milliseconds (created_at, updated_at…) read as UTC dates.
            if (custom === undefined && /_at$/.test(c) && typeof v === 'number' && v > 1e11)
              return h('td', {}, new Date(v).toISOString().replace('T', ' ').slice(0, 19));
            if (custom === undefined && typeof v === 'string' && v.length > LONG_TEXT) return textCell(v);
            return h('td', { class: typeof v === 'number' ? 'num' : undefined }, custom ?? cellText(v));
          }),
        ),
      ),
    ),
  );
}

/** Text longer than this gets a wide, wrapping cell with an expand toggle. */
const LONG_TEXT = 40;

/**
 * A long text cell (a prompt, a response): wide enough to read, wrapped, the first lines shown;
 * "expand" shows all of it in place, "collapse" folds it back.
 */
export function textCell(text) {
  const body = h('div', { class: 'clamp', 'data-testid': 'cell-text' }, text);
  const toggle = h(
    'button',
    {
      class: 'link',
      'data-testid': 'expand',
      onclick: (e) => {
        e.stopPropagation();
        const open = body.classList.toggle('expanded');
        toggle.textContent = open ? 'collapse' : 'expand';
      },
    },
    'expand',
  );
  return h('td', { class: 'text' }, body, text.length > 240 || text.includes('\n') ? toggle : null);
}
