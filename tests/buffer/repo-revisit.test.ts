import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ExperienceBuffer } from '../../src/buffer/experience-buffer.ts';
import { repoSampler } from '../../src/buffer/samplers/repo.ts';
import type { CandidateView, RowFacts } from '../../src/buffer/samplers/sampler.ts';
import type { Experience } from '../../src/core/experience.ts';
import { Rng } from '../../src/core/rng.ts';
import { tempDir } from '../helpers/tmp.ts';
import { exp, freshDb } from './experience-fixtures/make.ts';

/**
 * RePO with `revisitSteps`: beside the fresh groups and their own prompts' past rollouts, the
 * prompts explored in the last r explore steps are revisited (k past rollouts each), most recent
 * first. A hand-computed buffer (exact ids, order and advantages), then invariants (fast-check).
 */
const root = tempDir('winnow-repo-revisit-');
const open: ExperienceBuffer[] = [];
afterAll(async () => {
  for (const b of open) await b.close().catch(() => undefined);
});

const group = (task: string, step: number, rewards: number[]): Experience[] =>
  rewards.map((r, i) =>
    exp(`${task.toLowerCase()}_${i}`, {
      taskId: task,
      groupId: task,
      exploreStep: step,
      reward: r,
      advantage: 0.5,
    }),
  );

async function run(revisitSteps: number): Promise<Experience[][]> {
  const buf = await ExperienceBuffer.open(freshDb(root), {
    sampler: { type: 'repo', params: { strategy: 'recency', offPolicyPerPrompt: 2, revisitSteps } },
    seed: 7,
  });
  open.push(buf);
  const batches: Experience[][] = [];
  const steps = [
    [...group('P', 1, [1, 0, 1, 0]), ...group('Q', 1, [1, 1, 0, 0])],
    group('R', 2, [1, 0, 0, 0]),
    group('S', 3, [0, 1, 1, 1]),
  ];
  for (const [i, rows] of steps.entries()) {
    await buf.write(rows);
    batches.push((await buf.sample(12, { step: i + 1 })).experiences);
    await buf.ack(i + 1);
  }
  return batches;
}

describe('repo revisitSteps', () => {
  it('revisits the previous explore step’s prompts, the most recent first, with separate advantages', async () => {
    const [b1, b2, b3] = await run(1);
    expect(b1!.map((e) => e.id)).toEqual(['p_0', 'p_1', 'p_2', 'p_3', 'q_0', 'q_1', 'q_2', 'q_3']);
    // R is fresh and has no past; step 1's prompts are revisited: Q (its newest row is newer) then P.
    expect(b2!.map((e) => e.id)).toEqual(['r_0', 'r_1', 'r_2', 'r_3', 'q_3', 'q_2', 'p_3', 'p_2']);
    // Q's replayed rewards [0, 0] → 0; P's [0, 1] → −1, +1; fresh rows keep their 0.5.
    expect(b2!.map((e) => Number(e.advantage.toFixed(4)))).toEqual([0.5, 0.5, 0.5, 0.5, 0, 0, -1, 1]);
    // Step 3 revisits only step 2's prompt (R); P and Q were last explored at step 1.
    expect(b3!.map((e) => e.id)).toEqual(['s_0', 's_1', 's_2', 's_3', 'r_3', 'r_2']);
  });

  it('revisitSteps 0 (the default): only the fresh groups’ own prompts, as in the paper', async () => {
    const [, b2, b3] = await run(0);
    expect(b2!.map((e) => e.id)).toEqual(['r_0', 'r_1', 'r_2', 'r_3']);
    expect(b3!.map((e) => e.id)).toEqual(['s_0', 's_1', 's_2', 's_3']);
  });
});

interface Row {
  task: number;
  step: number;
  uses: number;
  eligible: boolean;
}

function view(rows: Row[]): CandidateView {
  const facts = (s: number): RowFacts => ({
    id: `r${s}`,
    seq: s,
    modelVersion: 0,
    advantage: 0.5,
    reward: s % 2,
    taskId: `t${rows[s]!.task}`,
    taskset: 'x',
    groupId: `t${rows[s]!.task}s${rows[s]!.step}`,
    exploreStep: rows[s]!.step,
    entropy: 0,
  });
  return {
    start: 0,
    end: rows.length,
    seq: Float64Array.from(rows, (_, s) => s),
    priority: new Float64Array(rows.length),
    group: Int32Array.from(rows, (r) => r.task * 100 + r.step),
    eligible: (s) => rows[s]!.eligible,
    facts,
    uses: (s) => rows[s]!.uses,
    size: rows.length,
    alive: () => true,
  };
}

const rowArb = fc.record({
  task: fc.integer({ min: 0, max: 5 }),
  step: fc.integer({ min: 0, max: 4 }),
  uses: fc.integer({ min: 0, max: 2 }),
  eligible: fc.boolean(),
});

describe('repo revisitSteps: invariants', () => {
  it('the fresh groups’ part is the paper’s batch; every other replayed row is a recent prompt’s, k at most each', () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { maxLength: 40 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.nat(),
        (rows, n, r, k, seed) => {
          const pick = (revisitSteps: number) =>
            repoSampler
              .create(repoSampler.params.parse({ strategy: 'random', offPolicyPerPrompt: k, revisitSteps }), {
                seed: 0,
                keys: { priority: new Float64Array(rows.length) } as never,
              })
              .select(view(rows), n, { keepGroups: false, rng: new Rng(seed) }).slots;
          const plain = pick(0);
          const slots = pick(r);
          expect(slots.slice(0, plain.length)).toEqual(plain);
          expect(new Set(slots).size).toBe(slots.length);
          expect(slots.length).toBeLessThanOrEqual(n);
          const extra = slots.slice(plain.length);
          if (plain.length === 0) expect(extra).toEqual([]);
          const now = Math.max(...plain.filter((s) => rows[s]!.uses === 0).map((s) => rows[s]!.step));
          const own = new Set(plain.filter((s) => rows[s]!.uses === 0).map((s) => rows[s]!.task));
          const perTask = new Map<number, number>();
          for (const s of extra) {
            const row = rows[s]!;
            expect(row.eligible && row.uses > 0).toBe(true);
            expect(own.has(row.task)).toBe(false);
            perTask.set(row.task, (perTask.get(row.task) ?? 0) + 1);
            const newest = Math.max(
              ...rows.flatMap((x, i) => (x.task === row.task && x.eligible && x.uses > 0 ? [i] : [])),
            );
            const step = rows[newest]!.step;
            expect(step >= now - r && step < now).toBe(true);
          }
          for (const c of perTask.values()) expect(c).toBeLessThanOrEqual(k);
        },
      ),
    );
  });
});
