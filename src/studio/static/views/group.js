import { get, post } from '../api.js';
import { cellText, errorLine, grid, h } from '../dom.js';

/** A token's text with whitespace made visible (a space token would otherwise be an empty box). */
function visibleText(text) {
  return text.replace(/ /g, '\u00b7').replace(/\n/g, '\u21b5') || '\u2205';
}

/** Colour of a token by its logprob: likely tokens pale, unlikely ones red. */
function tokenColor(lp) {
  if (lp === undefined || lp === null || Number.isNaN(lp)) return 'transparent';
  const p = Math.exp(Math.max(-10, Math.min(0, lp)));
  return `rgba(210, 40, 30, ${(1 - p) * 0.7})`;
}

/** The last edit made on a group page: kept across pages so `u` undoes it after the queue moved on. */
const LAST = 'studioLastEdit';
const remember = (edit, what) => sessionStorage.setItem(LAST, JSON.stringify({ editId: edit.editId, what }));
const lastEdit = () => JSON.parse(sessionStorage.getItem(LAST) ?? 'null');

/** The labelling queue: the groups of the list still unlabelled, the next one after `groupId`. */
async function queueOf(table, groupId, where) {
  const r = await get('/api/groups', { table, where, limit: 500 });
  const ids = r.groups.map((g) => g.groupId);
  const at = ids.indexOf(groupId);
  const after = [...r.groups.slice(at + 1), ...r.groups.slice(0, Math.max(0, at))];
  const left = after.filter((g) => !g.labelled);
  return { next: left[0]?.groupId ?? null, prev: at > 0 ? ids[at - 1] : null, left: left.length };
}

function tokenView(r, g) {
  const tokens = r.responseTokens.length > 0 && r.logprobs.length === r.responseTokens.length;
  if (!tokens)
    return h(
      'p',
      { class: 'note' },
      r.responseTokens.length > 0 ? 'token ids stored, logprobs unknown' : 'no tokens stored',
    );
  return h(
    'div',
    { 'data-testid': 'tokens' },
    h('span', { class: 'note' }, 'tokens by logprob (red: unlikely): '),
    r.responseTokens.map((t, i) =>
      h(
        'span',
        {
          class: 'tok',
          'data-token-id': String(t),
          title: `token ${t} · logprob ${r.logprobs[i].toFixed(3)}`,
          style: `background:${tokenColor(r.logprobs[i])}`,
        },
        r.tokenTexts ? visibleText(r.tokenTexts[i]) : String(t),
      ),
    ),
    g.tokenizer?.note
      ? h('p', { class: 'note', 'data-testid': 'token-note' }, `token ids shown: ${g.tokenizer.note}`)
      : null,
  );
}

/** This group's edits (its label, its responses' rewards) that can still be undone, newest first. */
function editsHere(edits, g) {
  const ids = new Set([g.groupId, ...g.responses.map((r) => r.id)]);
  return edits
    .filter((e) => ids.has(e.rowId) && e.kind !== 'undo' && !e.undoneBy)
    .slice()
    .reverse();
}

const SHORTCUTS = [
  ['1', 'label: better ≻ worse as picked'],
  ['2', 'label the other way round'],
  ['u', 'undo the last edit'],
  ['n', 'next unlabelled group'],
  ['p', 'previous group'],
  ['r', 'reason field'],
];

/**
 * One group: prompt, responses with reward/advantage, token view, why filtered; label the better
 * of two (with a reason), override rewards, undo either. With `queue=1` it walks the unlabelled
 * groups of the list: keys 1/2 label, u undoes, n/p move.
 */
export async function showGroup(root, { parts, params, info, go }) {
  const [table, groupId] = parts;
  const inQueue = params.get('queue') === '1';
  const where = params.get('where') ?? '';
  const g = await get('/api/group', { table, groupId });
  const msg = h('div', { 'data-testid': 'message' });
  const say = (...children) => msg.replaceChildren(h('p', { 'data-testid': 'saved' }, ...children));
  const fail = (err) => msg.replaceChildren(errorLine(err));
  const reload = () => go(['group', table, groupId], { queue: inQueue ? '1' : '', where, t: Date.now() });
  const queue = inQueue ? await queueOf(table, groupId, where) : null;
  const goNext = () => queue?.next && go(['group', table, queue.next], { queue: '1', where });
  const goPrev = () => queue?.prev && go(['group', table, queue.prev], { queue: '1', where });
  const undo = async (editId) => {
    try {
      const r = await post('/api/undo', { editId });
      sessionStorage.removeItem(LAST);
      say(`undone (${r.edit.reason})`);
      setTimeout(reload, 300);
    } catch (err) {
      fail(err);
    }
  };
  const pending = lastEdit();
  if (pending)
    msg.replaceChildren(
      h(
        'p',
        { 'data-testid': 'last-edit' },
        `last edit: ${pending.what} `,
        h('button', { 'data-testid': 'undo-last', onclick: () => undo(pending.editId) }, 'Undo (u)'),
      ),
    );
  root.append(
    h('h1', {}, `Group ${g.groupId}`),
    h(
      'p',
      { class: 'note' },
      'task ',
      g.taskId ? h('a', { href: `#/task/tasks/${encodeURIComponent(g.taskId)}` }, g.taskId) : 'unknown',
      g.step === null ? '' : ` · step ${g.step}`,
      ` · ${g.responses.length} responses`,
    ),
  );
  if (queue)
    root.append(
      h(
        'div',
        { class: 'bar', 'data-testid': 'queue' },
        h('strong', {}, `Labelling queue: ${queue.left} unlabelled after this one`),
        h('button', { disabled: !queue.prev, onclick: goPrev }, '← prev (p)'),
        h('button', { disabled: !queue.next, 'data-testid': 'queue-next', onclick: goNext }, 'next (n) →'),
        h('a', { href: `#/groups/${encodeURIComponent(table)}` }, 'leave the queue'),
      ),
      h(
        'p',
        { class: 'note', 'data-testid': 'shortcuts' },
        SHORTCUTS.map(([k, what]) => [h('kbd', {}, k), ` ${what}  `]),
      ),
    );
  root.append(msg);
  if (g.dropped) {
    root.append(
      h(
        'p',
        { class: 'note', 'data-testid': 'dropped' },
        'The run dropped this group whole: none of its responses is in the buffer table.',
        g.rewards ? ` Rewards: ${g.rewards.map(cellText).join(', ')}.` : '',
      ),
      h('h2', {}, 'Why dropped'),
      grid(['step', 'reason', 'row_id'], g.filtered, { testid: 'filtered' }),
    );
    return;
  }
  root.append(
    h('h2', {}, 'Prompt'),
    h('pre', {}, g.prompt ?? (g.messages ?? []).map((m) => `${m.role}: ${m.content}`).join('\n\n')),
  );
  if (g.filtered.length > 0)
    root.append(
      h('h2', {}, 'Why filtered'),
      grid(['step', 'reason', 'row_id'], g.filtered, { testid: 'filtered' }),
    );
  const option = (r, selected) => h('option', { value: r.id, selected }, `#${r.runIndex} (${r.id})`);
  const chosen = h(
    'select',
    { 'data-testid': 'chosen' },
    g.responses.map((r, i) => option(r, i === 0)),
  );
  const rejected = h(
    'select',
    { 'data-testid': 'rejected' },
    g.responses.map((r, i) => option(r, i === 1)),
  );
  const reason = h('input', {
    type: 'text',
    size: 40,
    placeholder: 'reason (recorded with the label or reward)',
    'data-testid': 'reason',
  });
  const label = async (swap = false) => {
    const [better, worse] = swap ? [rejected.value, chosen.value] : [chosen.value, rejected.value];
    try {
      const r = await post('/api/preference', {
        table,
        groupId,
        chosenId: better,
        rejectedId: worse,
        reason: reason.value,
      });
      remember(r.edit, `labelled ${groupId}: ${better} ≻ ${worse}`);
      say(`labelled: ${better} better than ${worse}`);
      setTimeout(() => (queue?.next ? goNext() : reload()), 300);
    } catch (err) {
      fail(err);
    }
  };
  const ro = info.readOnly;
  const pairable = g.responses.length >= 2;
  root.append(
    h('h2', {}, 'Preference'),
    pairable
      ? h(
          'div',
          { class: 'bar' },
          'better:',
          chosen,
          'worse:',
          rejected,
          h(
            'button',
            { class: 'primary', disabled: ro, 'data-testid': 'label-pair', onclick: () => label() },
            'Mark pair (1)',
          ),
        )
      : h('p', { class: 'note' }, 'A pair needs two responses.'),
    h('div', { class: 'bar' }, reason),
    g.preference
      ? h(
          'p',
          { 'data-testid': 'current-label' },
          `labelled by ${g.preference.user}: ${g.preference.chosenId} ≻ ${g.preference.rejectedId}`,
        )
      : h('p', { class: 'note', 'data-testid': 'current-label' }, 'not labelled yet'),
  );
  const { edits } = await get('/api/edits', { table });
  const here = editsHere(edits, g);
  if (here.length > 0)
    root.append(
      h('h2', {}, 'Edits here'),
      grid(
        ['kind', 'row', 'user', 'reason', ''],
        here.map((e) => ({
          kind: e.kind,
          row: e.rowId,
          user: e.user,
          reason: e.reason,
          '': '',
          editId: e.editId,
        })),
        {
          testid: 'group-edits',
          render: (c, e) =>
            c === ''
              ? h(
                  'button',
                  { disabled: ro, 'data-testid': `undo-${e.kind}-${e.row}`, onclick: () => undo(e.editId) },
                  'Undo',
                )
              : undefined,
        },
      ),
    );
  root.append(h('h2', {}, 'Responses'));
  for (const r of g.responses) {
    const reward = h('input', {
      type: 'text',
      size: 6,
      value: cellText(r.reward),
      'data-testid': `reward-${r.id}`,
    });
    const override = async () => {
      try {
        const out = await post('/api/experience/reward', {
          table,
          id: r.id,
          etag: r.etag,
          reward: Number(reward.value),
          reason: reason.value,
        });
        remember(out.edit, `reward of ${r.id} set to ${reward.value}`);
        say(`reward of ${r.id} set (version ${out.version})`);
        setTimeout(reload, 300);
      } catch (err) {
        fail(err);
      }
    };
    root.append(
      h(
        'div',
        {
          class: `response${g.preference?.chosenId === r.id ? ' chosen' : ''}`,
          'data-testid': `response-${r.id}`,
        },
        h(
          'div',
          { class: 'bar' },
          h('strong', {}, `#${r.runIndex}`),
          h('span', {}, r.advantage === null ? 'no advantage' : `advantage ${cellText(r.advantage)}`),
          h('label', {}, 'reward ', reward),
          h(
            'button',
            { disabled: ro, 'data-testid': `override-${r.id}`, onclick: override },
            'Override reward',
          ),
        ),
        h('pre', {}, r.response),
        tokenView(r, g),
      ),
    );
  }
  const keys = (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (/^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) {
      if (e.key === 'Escape') e.target.blur();
      return;
    }
    const act = {
      1: () => !ro && pairable && label(),
      2: () => !ro && pairable && label(true),
      u: () => lastEdit() && undo(lastEdit().editId),
      n: goNext,
      p: goPrev,
      r: () => reason.focus(),
    }[e.key];
    if (!act) return;
    e.preventDefault();
    act();
  };
  document.addEventListener('keydown', keys);
  window.studioStopLive = () => document.removeEventListener('keydown', keys);
}
