import { describe, expect, it } from 'vitest';
import { HookError, Hooks } from '../../src/lifecycle/hooks.ts';

interface Events {
  batch: { step: number; rows: Array<{ id: string; v: number }> };
  tick: { step: number };
}

describe('hooks', () => {
  it('observes, transforms and vetoes in registration order, recording vetoes with reasons', async () => {
    const seen: string[] = [];
    const hooks = new Hooks<Events>()
      .on('batch', (p) => void seen.push(`observe ${p.rows.length}`), 'observer')
      .on('batch', (p) => ({ rows: p.rows.map((r) => ({ ...r, v: r.v * 10 })) }), 'scale')
      .on(
        'batch',
        (p) => ({
          drop: p.rows.filter((r) => r.v > 20).map((row) => ({ row, reason: `v ${row.v} too large` })),
        }),
        'cap',
      );
    const { payload, rejected } = await hooks.emit('batch', {
      step: 1,
      rows: [
        { id: 'a', v: 1 },
        { id: 'b', v: 3 },
        { id: 'c', v: 2 },
      ],
    });
    expect(seen).toEqual(['observe 3']);
    expect(payload.rows).toEqual([
      { id: 'a', v: 10 },
      { id: 'c', v: 20 },
    ]);
    expect(payload.step).toBe(1);
    expect(rejected).toEqual([{ step: 'hook:batch:cap', reason: 'v 30 too large', row: { id: 'b', v: 30 } }]);
  });

  it('rejects a veto without a reason, a rows change on an observe-only event, and names a failing hook', async () => {
    const noReason = new Hooks<Events>().on(
      'batch',
      (p) => ({ drop: [{ row: p.rows[0]!, reason: '' }] }),
      'bad',
    );
    await expect(noReason.emit('batch', { step: 0, rows: [{ id: 'a', v: 1 }] })).rejects.toThrow(
      /hook 'bad' on batch returned/,
    );
    const tick = new Hooks<Events>().on('tick', () => ({ rows: [] }) as never, 'meddler');
    await expect(tick.emit('tick', { step: 0 })).rejects.toThrow(
      "hook 'meddler' on tick tried to change rows, but this event carries none",
    );
    const throws = new Hooks<Events>().on(
      'tick',
      () => {
        throw new Error('boom');
      },
      'exploder',
    );
    await expect(throws.emit('tick', { step: 0 })).rejects.toThrow(HookError);
    await expect(throws.emit('tick', { step: 0 })).rejects.toThrow("hook 'exploder' on tick failed: boom");
  });
});
