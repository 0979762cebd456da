import { get, post } from '../api.js';
import { cellText, errorLine, grid, h } from '../dom.js';

const PAGE = 50;

/** Experience groups of a buffer table: task, step, rollouts, mean and spread of reward. */
export async function showGroups(root, { parts, params, go }) {
  const [table] = parts;
  const offset = Number(params.get('offset') ?? 0);
  const where = params.get('where') ?? '';
  const input = h('input', {
    type: 'text',
    size: 50,
    value: where,
    placeholder: 'where: reward > 0',
    'data-testid': 'where',
  });
  root.append(
    h('h1', {}, `Groups of ${table}`),
    h(
      'form',
      {
        class: 'bar',
        onsubmit: (e) => {
          e.preventDefault();
          go(['groups', table], { where: input.value });
        },
      },
      input,
      h('button', { class: 'primary' }, 'Filter'),
    ),
  );
  const r = await get('/api/groups', { table, where, offset, limit: PAGE });
  root.append(
    h(
      'div',
      { class: 'bar' },
      h(
        'button',
        {
          disabled: offset === 0,
          onclick: () => go(['groups', table], { where, offset: Math.max(0, offset - PAGE) }),
        },
        '← prev',
      ),
      `${r.total} groups`,
      h(
        'button',
        {
          disabled: offset + PAGE >= r.total,
          onclick: () => go(['groups', table], { where, offset: offset + PAGE }),
        },
        'next →',
      ),
    ),
    grid(['groupId', 'taskId', 'step', 'rollouts', 'meanReward', 'rewardStd'], r.groups, {
      testid: 'groups',
      render: (c, g) =>
        c === 'groupId'
          ? h(
              'a',
              {
                href: `#/group/${encodeURIComponent(table)}/${encodeURIComponent(g.groupId)}`,
                'data-testid': `group-${g.groupId}`,
              },
              g.groupId,
            )
          : undefined,
    }),
  );
}

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

/** One group: prompt, responses with reward/advantage, token view, why filtered; label the better of two. */
export async function showGroup(root, { parts, info, go }) {
  const [table, groupId] = parts;
  const g = await get('/api/group', { table, groupId });
  const msg = h('div', { 'data-testid': 'message' });
  root.append(
    h('h1', {}, `Group ${g.groupId}`),
    h(
      'p',
      { class: 'note' },
      `task `,
      h('a', { href: `#/task/tasks/${encodeURIComponent(g.taskId)}` }, g.taskId),
      ` · step ${g.step} · ${g.responses.length} responses`,
    ),
    msg,
    h('h2', {}, 'Prompt'),
    h('pre', {}, g.prompt ?? (g.messages ?? []).map((m) => `${m.role}: ${m.content}`).join('\n\n')),
  );
  if (g.filtered.length > 0)
    root.append(
      h('h2', {}, 'Why filtered'),
      grid(['step', 'reason', 'row_id'], g.filtered, { testid: 'filtered' }),
    );
  const chosen = h(
    'select',
    { 'data-testid': 'chosen' },
    g.responses.map((r) => h('option', { value: r.id }, `#${r.runIndex} (${r.id})`)),
  );
  const rejected = h(
    'select',
    { 'data-testid': 'rejected' },
    g.responses.map((r, i) => h('option', { value: r.id, selected: i === 1 }, `#${r.runIndex} (${r.id})`)),
  );
  const label = async () => {
    try {
      await post('/api/preference', { table, groupId, chosenId: chosen.value, rejectedId: rejected.value });
      msg.replaceChildren(
        h('p', { 'data-testid': 'saved' }, `labelled: ${chosen.value} better than ${rejected.value}`),
      );
      setTimeout(() => go(['group', table, groupId], { t: Date.now() }), 300);
    } catch (err) {
      msg.replaceChildren(errorLine(err));
    }
  };
  root.append(
    h('h2', {}, 'Preference'),
    h(
      'div',
      { class: 'bar' },
      'better:',
      chosen,
      'worse:',
      rejected,
      h(
        'button',
        { class: 'primary', disabled: info.readOnly, 'data-testid': 'label-pair', onclick: label },
        'Mark pair',
      ),
    ),
    g.preference
      ? h(
          'p',
          { 'data-testid': 'current-label' },
          `labelled by ${g.preference.user}: ${g.preference.chosenId} ≻ ${g.preference.rejectedId}`,
        )
      : null,
    h('h2', {}, 'Responses'),
  );
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
        });
        msg.replaceChildren(
          h('p', { 'data-testid': 'saved' }, `reward of ${r.id} set (version ${out.version})`),
        );
      } catch (err) {
        msg.replaceChildren(errorLine(err));
      }
    };
    const tokens = r.responseTokens.length > 0 && r.logprobs.length === r.responseTokens.length;
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
          h('span', {}, `advantage ${cellText(r.advantage)}`),
          h('label', {}, 'reward ', reward),
          h('button', { disabled: info.readOnly, onclick: override }, 'Override reward'),
        ),
        h('pre', {}, r.response),
        tokens
          ? h(
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
                ? h(
                    'p',
                    { class: 'note', 'data-testid': 'token-note' },
                    `token ids shown: ${g.tokenizer.note}`,
                  )
                : null,
            )
          : h(
              'p',
              { class: 'note' },
              r.responseTokens.length > 0 ? 'token ids stored, logprobs unknown' : 'no tokens stored',
            ),
      ),
    );
  }
}
