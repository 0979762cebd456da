// The Studio's router: the hash names the view (#/table/tasks?where=…), so every view has a URL
// that can be reloaded or shared, and the back button works.
import { get } from './api.js';
import { errorLine, h } from './dom.js';
import { showEdits } from './views/edits.js';
import { showGroup } from './views/group.js';
import { showGroups } from './views/groups.js';
import { showRejected } from './views/rejected.js';
import { showCompare, showRuns } from './views/runs.js';
import { showTable } from './views/table.js';
import { showTables } from './views/tables.js';
import { showTask } from './views/task.js';

const view = document.getElementById('view');
let info = null;

/** Parse `#/a/b?x=1` into ['a', 'b'] and URLSearchParams. */
function route() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query] = raw.split('?');
  return {
    parts: path.split('/').filter(Boolean).map(decodeURIComponent),
    params: new URLSearchParams(query ?? ''),
  };
}

/** Go to a view (pushes history). */
export function go(parts, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const x of v) q.append(k, x);
    else q.set(k, String(v));
  }
  const qs = q.toString();
  location.hash = `#/${parts.map(encodeURIComponent).join('/')}${qs ? `?${qs}` : ''}`;
}

const VIEWS = {
  '': showTables,
  table: showTable,
  task: showTask,
  runs: showRuns,
  compare: showCompare,
  groups: showGroups,
  group: showGroup,
  rejected: showRejected,
  edits: showEdits,
};

let generation = 0;
async function render() {
  const mine = ++generation;
  const { parts, params } = route();
  const show = VIEWS[parts[0] ?? ''];
  const root = h('div', {});
  view.replaceChildren(root);
  window.studioStopLive?.();
  window.studioStopLive = undefined;
  try {
    if (!info) {
      info = await get('/api/info');
      document.getElementById('who').textContent = `${info.user}${info.readOnly ? ' · read-only' : ''}`;
    }
    if (!show) throw new Error(`no view '${parts[0]}'`);
    await show(root, { parts: parts.slice(1), params, info, go, isCurrent: () => mine === generation });
  } catch (err) {
    root.append(errorLine(err));
  }
  if (mine === generation) document.body.dataset.ready = String(mine);
}

window.addEventListener('hashchange', render);
render();
