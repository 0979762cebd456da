import { get, post } from '../api.js';
import { cellText, errorLine, grid, h } from '../dom.js';
import { lineChart } from './chart.js';

const pretty = (v) => JSON.stringify(v ?? {}, null, 2);

/** A task: its fields, an edit form (sent with the etag it was read at), review, edits with undo, history. */
export async function showTask(root, { parts, info, go }) {
  const [table, id] = parts;
  const d = await get('/api/task', { table, id });
  const t = d.task;
  const msg = h('div', { 'data-testid': 'message' });
  const reload = () => go(['task', table, id], { t: Date.now() });
  const fail = (err) => msg.replaceChildren(errorLine(err));
  const prompt = h('textarea', { 'data-testid': 'edit-prompt', value: t.prompt ?? '' });
  const answer = h('input', { type: 'text', size: 40, 'data-testid': 'edit-answer', value: t.answer ?? '' });
  const features = h('textarea', { 'data-testid': 'edit-features', value: pretty(t.features) });
  const meta = h('textarea', { 'data-testid': 'edit-meta', value: pretty(t.meta) });
  const reason = h('input', {
    type: 'text',
    size: 40,
    placeholder: 'reason (recorded with the edit)',
    'data-testid': 'edit-reason',
  });
  const save = async () => {
    let changes;
    try {
      changes = { features: JSON.parse(features.value), meta: JSON.parse(meta.value) };
    } catch (err) {
      return fail(new Error(`features/meta must be JSON: ${err.message}`));
    }
    if (prompt.value !== (t.prompt ?? '')) changes.prompt = prompt.value;
    if (answer.value !== (t.answer ?? '')) changes.answer = answer.value === '' ? null : answer.value;
    try {
      const r = await post('/api/task/edit', { table, id, etag: d.etag, changes, reason: reason.value });
      msg.replaceChildren(h('p', { 'data-testid': 'saved' }, `saved as version ${r.version}`));
      setTimeout(reload, 300);
    } catch (err) {
      fail(err);
    }
  };
  const review = (decision) => async () => {
    try {
      const r = await post('/api/task/review', { table, id, etag: d.etag, decision, reason: reason.value });
      msg.replaceChildren(h('p', { 'data-testid': 'saved' }, `${decision}ed as version ${r.version}`));
      setTimeout(decision === 'reject' ? () => go(['edits']) : reload, 300);
    } catch (err) {
      fail(err);
    }
  };
  const undo = (editId) => async () => {
    try {
      const r = await post('/api/undo', { editId });
      msg.replaceChildren(h('p', { 'data-testid': 'saved' }, `undone as version ${r.version}`));
      setTimeout(reload, 300);
    } catch (err) {
      fail(err);
    }
  };
  const ro = info.readOnly;
  root.append(
    h(
      'h1',
      {},
      `Task ${t.id}`,
      ' ',
      h('span', { class: 'pill', 'data-testid': 'task-version' }, `v${d.version}`),
    ),
    h(
      'p',
      { class: 'note' },
      `table ${table} · taskset ${t.taskset} · etag `,
      h('code', { 'data-testid': 'etag' }, d.etag),
      t.source ? ` · source ${t.source.file}:${t.source.row}` : '',
    ),
    msg,
    h(
      'div',
      { class: 'cols' },
      h(
        'div',
        {},
        h('h2', {}, 'Prompt'),
        prompt,
        h('h2', {}, 'Answer'),
        answer,
        h('h2', {}, 'Features'),
        features,
        h('h2', {}, 'Meta'),
        meta,
        h(
          'div',
          { class: 'bar' },
          reason,
          h('button', { class: 'primary', disabled: ro, 'data-testid': 'save', onclick: save }, 'Save edit'),
          h('button', { disabled: ro, 'data-testid': 'accept', onclick: review('accept') }, 'Accept'),
          h('button', { disabled: ro, 'data-testid': 'reject', onclick: review('reject') }, 'Reject'),
        ),
      ),
      h(
        'div',
        {},
        h('h2', {}, 'Edits'),
        d.edits.length === 0
          ? h('p', { class: 'note' }, 'none')
          : grid(
              ['kind', 'user', 'when', 'reason', 'versions', ''],
              d.edits
                .slice()
                .reverse()
                .map((e) => ({
                  ...e,
                  when: new Date(e.at).toISOString().slice(0, 19),
                  versions: `v${e.versionBefore}→v${e.versionAfter}`,
                  '': '',
                })),
              {
                testid: 'edits',
                render: (c, e) =>
                  c === '' && e.kind !== 'undo' && !e.undoneBy
                    ? h(
                        'button',
                        { disabled: ro, 'data-testid': `undo-${e.kind}`, onclick: undo(e.editId) },
                        'Undo',
                      )
                    : c === '' && e.undoneBy
                      ? 'undone'
                      : undefined,
              },
            ),
      ),
    ),
  );
  root.append(h('h2', {}, 'Selection history'));
  if (d.runs.length === 0) root.append(h('p', { class: 'note' }, 'No run has rollouts of this task.'));
  const charts = h('div', { class: 'charts' });
  root.append(charts);
  for (const run of d.runs) {
    const x = run.history.map((p) => p.step);
    charts.append(
      lineChart(
        `${run.runId}: picks`,
        x,
        { picks: run.history.map((p) => p.picks) },
        { width: 360, height: 180 },
      ).box,
    );
    // The selector's own estimate at the steps it saved a state, on the same steps as mean reward.
    const est = run.selector?.points ?? [];
    const steps = [...new Set([...x, ...est.map((p) => p.step)])].sort((a, b) => a - b);
    const at = (points, key) => steps.map((s) => points.find((p) => p.step === s)?.[key] ?? null);
    const series = { 'mean reward': at(run.history, 'meanReward') };
    if (est.length > 0) series[`${run.selector.selector}: ${run.selector.estimate}`] = at(est, 'value');
    charts.append(lineChart(`${run.runId}: pass rate`, steps, series, { width: 360, height: 180 }).box);
    if (run.selector?.note)
      charts.append(h('p', { class: 'note' }, `${run.runId} selector states: ${run.selector.note}`));
  }
  for (const run of d.runs) {
    root.append(
      h('h2', {}, `Rollouts in ${run.runId} (latest ${run.rollouts.length})`),
      grid(['step', 'groupId', 'reward', 'advantage', 'response'], run.rollouts, {
        render: (c, r) =>
          c === 'groupId'
            ? h(
                'a',
                { href: `#/group/${encodeURIComponent(run.table)}/${encodeURIComponent(r.groupId)}` },
                cellText(r.groupId),
              )
            : undefined,
      }),
    );
  }
}
