import { get } from '../api.js';
import { grid, h } from '../dom.js';

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
    h(
      'div',
      { class: 'bar' },
      h(
        'button',
        {
          class: 'primary',
          'data-testid': 'start-queue',
          disabled: r.unlabelled === 0,
          onclick: () => {
            const first = r.groups.find((g) => !g.labelled);
            if (first) go(['group', table, first.groupId], { queue: '1', where });
          },
        },
        `Label the queue (${r.unlabelled} unlabelled)`,
      ),
    ),
    grid(
      ['groupId', 'taskId', 'step', 'rollouts', 'meanReward', 'rewardStd', 'label'],
      r.groups.map((g) => ({ ...g, label: g.labelled ? 'labelled' : '' })),
      {
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
      },
    ),
  );
}
