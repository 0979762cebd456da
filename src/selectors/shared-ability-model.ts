// The shared-ability model's state: the regressors of every task, the shared Gaussian posterior
// (reference weights, practice gain, domain offsets), the per-task residual posteriors, and the
// predictive moments of a task's log-odds that selection and the update both read.
import { DataError } from '../core/errors.ts';
import type { SharedAbilityParams } from './shared-ability-params.ts';
import { ObservedSlots } from './shared-ability-slots.ts';
import { encodeDomains } from './task-view.ts';
import type { SelectorTaskView } from './types.ts';

export const logit = (p: number): number => Math.log(p / (1 - p));
export const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

export class AbilityModel {
  readonly params: SharedAbilityParams;
  /** Static regressors (reference log-odds, extra features), task-major: x[k·xd + j]. */
  x = new Float64Array(0);
  xd = 0;
  /** Times each task was trained on (groups with mixed rewards): the practice regressor. */
  practiced = new Float64Array(0);
  /** Dense weights: the static regressors, then the practice gain when enabled. */
  dense = 0;
  useRefs = false;
  private extraMean: number[] = [];
  private extraSd: number[] = [];
  private refMeans: [number, number] = [0, 0];
  domain = new Int32Array(0);
  domainNames: string[] = [];
  /** Shared posterior: mean (dense weights then domain offsets) and covariance (row-major). */
  mu = new Float64Array(0);
  cov = new Float64Array(0);
  rMean = new Float64Array(0);
  rVar = new Float64Array(0);
  /** Step at which each residual was last updated (−1: never observed). */
  seen = new Int32Array(0);
  readonly slots = new ObservedSlots();
  residualVar: number;
  steps = 0;

  constructor(params: SharedAbilityParams) {
    this.params = params;
    this.residualVar = params.residualSd ** 2;
  }

  get dim(): number {
    return this.dense + this.domainNames.length;
  }

  /** The tasks' regressors and the prior; `notice` is told when the reference columns are missing. */
  init(view: SelectorTaskView, notice: (message: string) => void): void {
    const p = this.params;
    this.useRefs = view.features[p.weakColumn] !== undefined && view.features[p.strongColumn] !== undefined;
    if (!this.useRefs)
      notice(
        `shared_ability: reference columns '${p.weakColumn}' and '${p.strongColumn}' are not both present; using domain offsets and per-task residuals only`,
      );
    for (const f of p.features)
      if (!view.features[f])
        throw new DataError({
          message: `shared_ability.init: the tasks have no feature column '${f}' (params.features)`,
        });
    this.xd = (this.useRefs ? 2 : 0) + p.features.length;
    this.dense = this.xd + (p.practiceEffect ? 1 : 0);
    if (this.useRefs) {
      this.refMeans = [
        this.meanLogit(view.features[p.weakColumn]!),
        this.meanLogit(view.features[p.strongColumn]!),
      ];
    }
    this.extraMean = p.features.map((f) => mean(view.features[f]!));
    this.extraSd = p.features.map((f, i) => sd(view.features[f]!, this.extraMean[i]!) || 1);
    const enc = encodeDomains(view.domains, view.ids.length);
    this.domain = enc.codes;
    this.domainNames = enc.names;
    this.x = this.regressors(view);
    const n = view.ids.length;
    this.rMean = new Float64Array(n);
    this.rVar = new Float64Array(n);
    this.practiced = new Float64Array(n);
    this.seen = new Int32Array(n).fill(-1);
    this.slots.reset(n);
    this.initPrior();
  }

  private initPrior(): void {
    const p = this.params;
    const P = this.dim;
    this.mu = new Float64Array(P);
    this.cov = new Float64Array(P * P);
    for (let j = 0; j < this.xd; j++) {
      const isRef = this.useRefs && j < 2;
      this.mu[j] = isRef ? (j === 0 ? p.priorWeakWeight : p.priorStrongWeight) : 0;
      this.cov[j * P + j] = p.priorWeightSd ** 2;
    }
    if (p.practiceEffect) {
      this.mu[this.xd] = p.priorPractice;
      this.cov[this.xd * P + this.xd] = p.priorPracticeSd ** 2;
    }
    for (let d = 0; d < this.domainNames.length; d++)
      this.cov[(this.dense + d) * P + this.dense + d] = p.priorOffsetSd ** 2;
  }

  /** Tasks appended at `offset`: their regressors, and new domains' offsets in the posterior. */
  addTasks(view: SelectorTaskView, offset: number): void {
    for (const f of this.params.features)
      if (!view.features[f])
        throw new DataError({ message: `shared_ability.addTasks: new tasks lack feature column '${f}'` });
    const enc = encodeDomains(view.domains, view.ids.length, this.domainNames);
    const added = enc.names.length - this.domainNames.length;
    if (added > 0) this.addDomains(added);
    this.domainNames = enc.names;
    const n = offset + view.ids.length;
    const dom = new Int32Array(n);
    dom.set(this.domain);
    dom.set(enc.codes, offset);
    this.domain = dom;
    const x = new Float64Array(n * this.xd);
    x.set(this.x);
    x.set(this.regressors(view), offset * this.xd);
    this.x = x;
    const grow = (a: Float64Array) => {
      const out = new Float64Array(n);
      out.set(a);
      return out;
    };
    this.rMean = grow(this.rMean);
    this.rVar = grow(this.rVar);
    this.practiced = grow(this.practiced);
    const seen = new Int32Array(n).fill(-1);
    seen.set(this.seen);
    this.seen = seen;
    this.slots.resize(n);
  }

  /** New domains start at the average offset with the prior's uncertainty. */
  private addDomains(added: number): void {
    const oldP = this.dim;
    const P = oldP + added;
    const mu = new Float64Array(P);
    const cov = new Float64Array(P * P);
    mu.set(this.mu);
    for (let i = 0; i < oldP; i++) for (let j = 0; j < oldP; j++) cov[i * P + j] = this.cov[i * oldP + j]!;
    let avg = 0;
    for (let d = 0; d < this.domainNames.length; d++) avg += this.mu[this.dense + d]!;
    avg /= Math.max(1, this.domainNames.length);
    for (let j = oldP; j < P; j++) {
      mu[j] = avg;
      cov[j * P + j] = this.params.priorOffsetSd ** 2;
    }
    this.mu = mu;
    this.cov = cov;
  }

  private meanLogit(col: Float64Array): number {
    let s = 0;
    let c = 0;
    for (let i = 0; i < col.length; i++) {
      const v = col[i]!;
      if (Number.isFinite(v)) {
        s += this.refLogit(v);
        c++;
      }
    }
    return c > 0 ? s / c : 0;
  }

  private refLogit(v: number): number {
    const e = this.params.refClip;
    return logit(Math.min(1 - e, Math.max(e, v)));
  }

  private regressors(view: SelectorTaskView): Float64Array<ArrayBuffer> {
    const n = view.ids.length;
    const D = this.xd;
    const x = new Float64Array(n * D);
    const p = this.params;
    const cols: Array<{ col: Float64Array; f: (v: number) => number; fill: number }> = [];
    if (this.useRefs) {
      const weak = view.features[p.weakColumn];
      const strong = view.features[p.strongColumn];
      // A task set added later may lack the columns: those tasks get the average reference.
      cols.push({
        col: weak ?? new Float64Array(n).fill(Number.NaN),
        f: (v) => this.refLogit(v),
        fill: this.refMeans[0],
      });
      cols.push({
        col: strong ?? new Float64Array(n).fill(Number.NaN),
        f: (v) => this.refLogit(v),
        fill: this.refMeans[1],
      });
    }
    p.features.forEach((name, i) => {
      const m = this.extraMean[i]!;
      const s = this.extraSd[i]!;
      cols.push({ col: view.features[name]!, f: (v) => (v - m) / s, fill: 0 });
    });
    for (let j = 0; j < cols.length; j++) {
      const { col, f, fill } = cols[j]!;
      for (let k = 0; k < n; k++) {
        const v = col[k]!;
        x[k * D + j] = Number.isFinite(v) ? f(v) : fill;
      }
    }
    return x;
  }

  /** Task k's regressors: dense part then the domain indicator (length = dim). */
  fillPhi(k: number, phi: Float64Array): void {
    phi.fill(0);
    const xd = this.xd;
    for (let j = 0; j < xd; j++) phi[j] = this.x[k * xd + j]!;
    if (this.params.practiceEffect) phi[xd] = this.practiced[k]!;
    phi[this.dense + this.domain[k]!] = 1;
  }

  /** Prior-predictive mean and variance of task k's log-odds at the current step. */
  moments(k: number, out: Float64Array, phi: Float64Array = new Float64Array(this.dim)): void {
    const P = this.dim;
    this.fillPhi(k, phi);
    let m = this.rMean[k]!;
    let v = this.residualVariance(k);
    for (let i = 0; i < P; i++) {
      const fi = phi[i]!;
      if (fi === 0) continue;
      m += this.mu[i]! * fi;
      for (let j = 0; j < P; j++) v += fi * phi[j]! * this.cov[i * P + j]!;
    }
    out[0] = m;
    out[1] = v;
  }

  residualVariance(k: number): number {
    const t = this.seen[k]!;
    if (t < 0) return this.residualVar;
    return Math.min(this.residualVar, this.rVar[k]! + this.params.residualDrift * (this.steps - t));
  }

  /** Task k was observed for the first time: it takes the next observed slot. */
  markObserved(k: number): void {
    const two = this.xd === 2;
    this.slots.mark(k, two ? this.x[2 * k]! : 0, two ? this.x[2 * k + 1]! : 0, this.domain[k]!);
  }

  /** Copy an observed task's changing columns into its slot. */
  syncSlot(k: number): void {
    this.slots.sync(k, this.practiced[k]!, this.rMean[k]!, this.rVar[k]!, this.seen[k]!);
  }
}

function mean(col: Float64Array): number {
  let s = 0;
  let c = 0;
  for (const v of col)
    if (Number.isFinite(v)) {
      s += v;
      c++;
    }
  return c > 0 ? s / c : 0;
}

function sd(col: Float64Array, m: number): number {
  let s = 0;
  let c = 0;
  for (const v of col)
    if (Number.isFinite(v)) {
      s += (v - m) * (v - m);
      c++;
    }
  return c > 1 ? Math.sqrt(s / (c - 1)) : 0;
}
