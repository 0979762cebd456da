import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { hashSeed, Rng } from '../../core/rng.ts';
import type { SelectorTaskView, TaskFeedback } from '../types.ts';

/**
 * A learner simulator for studying task selection in seconds. Tasks follow an item-response
 * model: the learner solves task k with probability
 *   p_k = σ(a_k · (θ + φ_domain + u_k − b_k))
 * (difficulty b_k, discrimination a_k, a global ability θ, per-domain abilities φ and per-task
 * terms u_k). A rollout group is G draws; the learner improves only from groups whose rewards are
 * not all equal, by an amount proportional to the group's reward spread (a GRPO group with equal
 * rewards has zero advantage). Held-out accuracy is the expected pass rate on tasks never trained on.
 * Weak and strong reference pass-rate columns come from two fixed models of the same form, with
 * per-task noise and finite-sample estimation, or are useless, or absent.
 */

export const LearnerSimConfigSchema = z.object({
  tasks: z.number().int().positive().default(4000),
  heldOut: z.number().int().positive().default(1000),
  domains: z.number().int().positive().default(4),
  groupSize: z.number().int().positive().default(16),
  difficultyMean: z.number().default(0),
  difficultySd: z.number().nonnegative().default(2.8),
  /** a_k = scale · exp(N(0, sd²)). */
  discriminationScale: z.number().positive().default(2),
  discriminationLogSd: z.number().nonnegative().default(0.3),
  /** Initial global ability θ. */
  theta0: z.number().default(-1),
  /** Learner's initial per-domain abilities φ ~ N(0, sd²). */
  learnerDomainSd: z.number().nonnegative().default(0.4),
  /** Learner's initial per-task idiosyncrasy u_k ~ N(0, sd²) (unknown to the references). */
  taskSd: z.number().nonnegative().default(0.5),
  references: z.enum(['informative', 'useless', 'none']).default('informative'),
  weakTheta: z.number().default(-1.5),
  strongTheta: z.number().default(1),
  /** The reference models' own per-domain abilities ~ N(0, sd²), independent of the learner's. */
  refDomainSd: z.number().nonnegative().default(0.4),
  /** Per-task noise on the references' logits. */
  refNoiseSd: z.number().nonnegative().default(0.3),
  /** Reference pass rates are estimated from this many samples (0 = exact). */
  refSamples: z.number().int().nonnegative().default(16),
  /** Learning rates: θ and φ move by rate × (sum of group spreads) / batch size; u_k by rate × spread. */
  learnGlobal: z.number().nonnegative().default(0.006),
  learnDomain: z.number().nonnegative().default(0.012),
  learnTask: z.number().nonnegative().default(0.2),
  rewards: z.enum(['binary', 'partial']).default('binary'),
  /** Partial-credit rewards: each rollout scores Binomial(parts, p) / parts. */
  partialParts: z.number().int().positive().default(4),
  /**
   * Reward noise: each binary reward is flipped with this probability (a seeded stream of its own,
   * so the true outcomes stay those of the noiseless run). The learner gains only the part of a
   * group's spread that the rewards share with the true outcomes (see `learn`).
   */
  rewardNoise: z.number().min(0).max(0.5).default(0),
  /** New tasks (same distribution) arriving before the given step. */
  arrivals: z
    .array(z.object({ step: z.number().int().nonnegative(), count: z.number().int().positive() }))
    .default([]),
});
export type LearnerSimConfig = z.output<typeof LearnerSimConfigSchema>;
export type LearnerSimConfigInput = z.input<typeof LearnerSimConfigSchema>;

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

interface TaskParams {
  a: Float64Array;
  b: Float64Array;
  dom: Int32Array;
  u: Float64Array;
}

export class LearnerSim {
  readonly config: LearnerSimConfig;
  readonly seed: number;
  private readonly world: Rng;
  theta: number;
  readonly phi: Float64Array;
  /** Reference models' per-domain abilities. */
  private readonly psi: Float64Array;
  private tasks: TaskParams;
  private readonly held: TaskParams;
  private weak: Float64Array;
  private strong: Float64Array;
  private level: Float64Array;
  private readonly arrived = new Set<number>();

  constructor(config: LearnerSimConfigInput = {}, seed = 0) {
    const parsed = LearnerSimConfigSchema.safeParse(config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError({ path: `sim.${issue.path.join('.')}`, message: issue.message });
    }
    this.config = parsed.data;
    this.seed = seed;
    this.world = new Rng(hashSeed('learner-sim-world', seed));
    const c = this.config;
    this.theta = c.theta0;
    this.phi = new Float64Array(c.domains);
    this.psi = new Float64Array(c.domains);
    for (let d = 0; d < c.domains; d++) this.phi[d] = this.world.normal(0, c.learnerDomainSd);
    for (let d = 0; d < c.domains; d++) this.psi[d] = this.world.normal(0, c.refDomainSd);
    this.tasks = this.drawTasks(c.tasks);
    this.held = this.drawTasks(c.heldOut);
    const refs = this.drawRefs(this.tasks);
    this.weak = refs.weak;
    this.strong = refs.strong;
    this.level = refs.level;
  }

  get taskCount(): number {
    return this.tasks.a.length;
  }

  private drawTasks(n: number): TaskParams {
    const c = this.config;
    const t: TaskParams = {
      a: new Float64Array(n),
      b: new Float64Array(n),
      dom: new Int32Array(n),
      u: new Float64Array(n),
    };
    for (let k = 0; k < n; k++) {
      t.dom[k] = this.world.int(c.domains);
      t.a[k] = c.discriminationScale * Math.exp(this.world.normal(0, c.discriminationLogSd));
      t.b[k] = this.world.normal(c.difficultyMean, c.difficultySd);
      t.u[k] = this.world.normal(0, c.taskSd);
    }
    return t;
  }

  private drawRefs(t: TaskParams): { weak: Float64Array; strong: Float64Array; level: Float64Array } {
    const c = this.config;
    const n = t.a.length;
    const weak = new Float64Array(n);
    const strong = new Float64Array(n);
    const level = new Float64Array(n);
    const measure = (p: number): number =>
      c.refSamples > 0 ? this.world.binomial(c.refSamples, p) / c.refSamples : p;
    const cuts = [-0.84, -0.25, 0.25, 0.84].map((z) => c.difficultyMean + z * c.difficultySd);
    for (let k = 0; k < n; k++) {
      const d = t.dom[k]!;
      if (c.references === 'useless') {
        const x = this.world.float();
        const y = this.world.float();
        weak[k] = Math.min(x, y);
        strong[k] = Math.max(x, y);
      } else {
        weak[k] = measure(
          sigmoid(t.a[k]! * (c.weakTheta + this.psi[d]! - t.b[k]!) + this.world.normal(0, c.refNoiseSd)),
        );
        strong[k] = measure(
          sigmoid(t.a[k]! * (c.strongTheta + this.psi[d]! - t.b[k]!) + this.world.normal(0, c.refNoiseSd)),
        );
      }
      const noisy = t.b[k]! + this.world.normal(0, 0.5);
      level[k] = 1 + cuts.filter((cut) => noisy > cut).length;
    }
    return { weak, strong, level };
  }

  private viewOf(from: number, to: number): SelectorTaskView {
    const ids: string[] = [];
    const domains: string[] = [];
    for (let k = from; k < to; k++) {
      ids.push(`t${k}`);
      domains.push(`d${this.tasks.dom[k]!}`);
    }
    const features: Record<string, Float64Array> = { level: this.level.slice(from, to) };
    if (this.config.references !== 'none') {
      features['weak_pass_rate'] = this.weak.slice(from, to);
      features['strong_pass_rate'] = this.strong.slice(from, to);
    }
    return { ids, features, domains };
  }

  /** The tasks available at the start. */
  view(): SelectorTaskView {
    return this.viewOf(0, this.taskCount);
  }

  /** Tasks arriving before `step` (once), or null. */
  arrivals(step: number): SelectorTaskView | null {
    const due = this.config.arrivals.filter((a, i) => a.step === step && !this.arrived.has(i));
    if (due.length === 0) return null;
    const from = this.taskCount;
    let count = 0;
    this.config.arrivals.forEach((a, i) => {
      if (a.step === step) {
        this.arrived.add(i);
        count += a.count;
      }
    });
    const fresh = this.drawTasks(count);
    const refs = this.drawRefs(fresh);
    const cat = <T extends Float64Array | Int32Array>(x: T, y: T): T => {
      const out = new (x.constructor as { new (n: number): T })(x.length + y.length);
      out.set(x);
      out.set(y, x.length);
      return out;
    };
    this.tasks = {
      a: cat(this.tasks.a, fresh.a),
      b: cat(this.tasks.b, fresh.b),
      dom: cat(this.tasks.dom, fresh.dom),
      u: cat(this.tasks.u, fresh.u),
    };
    this.weak = cat(this.weak, refs.weak);
    this.strong = cat(this.strong, refs.strong);
    this.level = cat(this.level, refs.level);
    return this.viewOf(from, this.taskCount);
  }

  indexOf(taskId: string): number {
    const k = Number(taskId.slice(1));
    if (!taskId.startsWith('t') || !Number.isInteger(k) || k < 0 || k >= this.taskCount)
      throw new ConfigError({ path: 'taskId', message: `unknown simulated task '${taskId}'` });
    return k;
  }

  /** The learner's current pass rate on task k. */
  passRate(k: number): number {
    const t = this.tasks;
    return sigmoid(t.a[k]! * (this.theta + this.phi[t.dom[k]!]! + t.u[k]! - t.b[k]!));
  }

  /** Current pass rates of all tasks. */
  passRates(): Float64Array {
    const n = this.taskCount;
    const out = new Float64Array(n);
    for (let k = 0; k < n; k++) out[k] = this.passRate(k);
    return out;
  }

  /** Roll out each task G times (the stream depends only on the seed, the step and the batch). */
  rollout(taskIds: readonly string[], step: number): TaskFeedback[] {
    const rng = new Rng(hashSeed('learner-sim-rollout', this.seed, step));
    const g = this.config.groupSize;
    const eps = this.config.rewardNoise;
    const flips = eps > 0 ? new Rng(hashSeed('learner-sim-reward-noise', this.seed, step)) : null;
    return taskIds.map((taskId) => {
      const p = this.passRate(this.indexOf(taskId));
      const rewards = new Array<number>(g);
      for (let i = 0; i < g; i++) {
        rewards[i] =
          this.config.rewards === 'binary'
            ? rng.float() < p
              ? 1
              : 0
            : rng.binomial(this.config.partialParts, p) / this.config.partialParts;
        if (flips && flips.float() < eps) rewards[i] = 1 - rewards[i]!;
      }
      return { taskId, rewards };
    });
  }

  /**
   * One training step on a batch of groups. Each group's spread s = 2·sd(rewards) ∈ [0, 1]
   * (0 when all rewards are equal) moves θ by learnGlobal·Σs/B, its domain by learnDomain·Σs/B
   * and its own task term by learnTask·s. Returns the number of groups with mixed rewards.
   */
  learn(results: readonly TaskFeedback[]): number {
    const c = this.config;
    const batch = Math.max(1, results.length);
    let total = 0;
    let mixed = 0;
    const perDomain = new Float64Array(this.phi.length);
    for (const r of results) {
      const k = this.indexOf(r.taskId);
      const observed = groupSpread(r.rewards);
      if (observed > 0) mixed++;
      const s = c.rewardNoise > 0 ? observed * trueSignalShare(this.passRate(k), c.rewardNoise) : observed;
      total += s;
      perDomain[this.tasks.dom[k]!]! += s;
      this.tasks.u[k]! += c.learnTask * s;
    }
    this.theta += (c.learnGlobal * total) / batch;
    for (let d = 0; d < this.phi.length; d++) this.phi[d]! += (c.learnDomain * perDomain[d]!) / batch;
    return mixed;
  }

  /** Expected accuracy on the held-out tasks. */
  heldOutAccuracy(): number {
    const h = this.held;
    let sum = 0;
    for (let k = 0; k < h.a.length; k++)
      sum += sigmoid(h.a[k]! * (this.theta + this.phi[h.dom[k]!]! + h.u[k]! - h.b[k]!));
    return sum / h.a.length;
  }
}

/**
 * With rewards flipped at rate ε, the correlation between a rollout's reward and its true outcome
 * (pass rate p): (1 − 2ε)·√(p(1−p) / (q(1−q))), q = ε + (1 − 2ε)p. A GRPO update's useful part
 * scales with it: on a hopeless or solved task (p ≈ 0 or 1) the flipped rewards are pure noise.
 */
export function trueSignalShare(p: number, eps: number): number {
  const q = eps + (1 - 2 * eps) * p;
  const v = q * (1 - q);
  return v > 0 ? (1 - 2 * eps) * Math.sqrt((p * (1 - p)) / v) : 0;
}

/** 2 × the population standard deviation of the rewards: 1 for a half-right binary group, 0 if all equal. */
export function groupSpread(rewards: readonly number[]): number {
  const n = rewards.length;
  if (n < 2) return 0;
  let mean = 0;
  for (const r of rewards) mean += r;
  mean /= n;
  let v = 0;
  for (const r of rewards) v += (r - mean) * (r - mean);
  const sd = Math.sqrt(v / n);
  return sd < 1e-12 ? 0 : Math.min(1, 2 * sd);
}
