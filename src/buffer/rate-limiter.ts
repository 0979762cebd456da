import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';

export const ReplayRatioSchema = z.strictObject({
  samplesPerInsert: z
    .number()
    .positive()
    .describe('Target experiences sampled per experience inserted (the replay ratio).'),
  minSizeToSample: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe('No sampling before the buffer holds this many experiences.'),
  tolerance: z
    .number()
    .nonnegative()
    .default(0.1)
    .describe(
      'Relative band: errorBuffer = tolerance × samplesPerInsert × minSizeToSample unless errorBuffer is set.',
    ),
  errorBuffer: z
    .number()
    .nonnegative()
    .optional()
    .describe('Allowed drift, in samples, of (samples − samplesPerInsert × (inserts − minSizeToSample)).'),
  insertBatch: z
    .number()
    .int()
    .positive()
    .describe(
      'Experiences per explorer write (one step’s rollouts); needed to prove the limiter cannot deadlock.',
    ),
});
export type ReplayRatioConfig = z.output<typeof ReplayRatioSchema>;

export interface ReplayRatioState {
  inserted: number;
  sampled: number;
}

/**
 * Reverb-style sample-to-insert rate limiter. With r = samplesPerInsert, m = minSizeToSample and
 * E = errorBuffer, it keeps S (experiences sampled) within r × (I − m) ± E, I = experiences
 * inserted:
 * - a sample of n may go ahead iff the buffer holds ≥ m rows and S + n ≤ r(I − m) + E;
 * - an insert of k may go ahead iff the buffer holds < m rows (nothing can be sampled yet) or
 *   r(I + k − m) − S ≤ E.
 * Once the buffer holds m rows, both are blocked at once iff r(I − m) + E − n < S < r(I + k − m) − E,
 * which is possible iff 2E < r·k + n (k = insert batch, n = sample batch): such settings are
 * rejected up front. Counts are part of the run's checkpoint (`state`/`load`). The buffer owns it
 * (`buffer.rateLimiter`): every write counts as inserts, every sample as samples.
 */
export class ReplayRatioLimiter {
  readonly config: ReplayRatioConfig;
  readonly errorBuffer: number;
  private inserted = 0;
  private sampled = 0;

  constructor(config: ReplayRatioConfig) {
    this.config = config;
    this.errorBuffer =
      config.errorBuffer ?? config.tolerance * config.samplesPerInsert * config.minSizeToSample;
  }

  canSample(n: number, bufferSize: number): boolean {
    const { samplesPerInsert: r, minSizeToSample: m } = this.config;
    if (bufferSize < m) return false;
    return this.sampled + n <= r * (this.inserted - m) + this.errorBuffer + 1e-9;
  }

  /** While the buffer is below `minSizeToSample` nothing can be sampled, so inserts always go ahead. */
  canInsert(k: number, bufferSize = 0): boolean {
    const { samplesPerInsert: r, minSizeToSample: m } = this.config;
    if (bufferSize < m) return true;
    return r * (this.inserted + k - m) - this.sampled <= this.errorBuffer + 1e-9;
  }

  /** Why `canSample` is false, for logs and the `blocked` field of a batch. */
  whySampleBlocked(n: number, bufferSize: number): string {
    const { samplesPerInsert: r, minSizeToSample: m } = this.config;
    if (bufferSize < m) return `replay_ratio: buffer holds ${bufferSize} < minSizeToSample ${m}`;
    return `replay_ratio: ${this.sampled} sampled + ${n} would exceed ${r} × (${this.inserted} inserted − ${m}) + ${this.errorBuffer}`;
  }

  onInsert(k: number): void {
    this.inserted += k;
  }

  onSample(n: number): void {
    this.sampled += n;
  }

  /** Current samples per insert (after warm-up), for reports. */
  ratio(): number {
    const d = this.inserted - this.config.minSizeToSample;
    return d > 0 ? this.sampled / d : 0;
  }

  state(): ReplayRatioState {
    return { inserted: this.inserted, sampled: this.sampled };
  }

  load(s: ReplayRatioState): void {
    this.inserted = s.inserted;
    this.sampled = s.sampled;
  }
}

/**
 * Reject replay-ratio settings that can stall the run: a band too narrow for one insert batch plus
 * one sample batch (deadlock), a warm-up the buffer can never reach (capacity), or a ratio the
 * sampler cannot serve (each experience is delivered at most maxUses times).
 */
export function checkReplayRatio(
  cfg: ReplayRatioConfig,
  ctx: { batchSize: number; maxUses: number; capacity: number | null },
  path = 'buffer.rateLimiter',
): void {
  const r = cfg.samplesPerInsert;
  const e = cfg.errorBuffer ?? cfg.tolerance * r * cfg.minSizeToSample;
  const need = r * cfg.insertBatch + ctx.batchSize;
  if (2 * e < need) {
    const field = cfg.errorBuffer !== undefined ? 'errorBuffer' : 'tolerance';
    const fix =
      cfg.errorBuffer !== undefined
        ? `errorBuffer ≥ ${need / 2}`
        : cfg.minSizeToSample > 0
          ? `tolerance ≥ ${round(need / (2 * r * cfg.minSizeToSample))} or minSizeToSample ≥ ${Math.ceil(need / (2 * r * cfg.tolerance || 1))}`
          : `minSizeToSample > 0 (the band is tolerance × samplesPerInsert × minSizeToSample) or an explicit errorBuffer ≥ ${need / 2}`;
    throw new ConfigError({
      path: `${path}.${field}`,
      message: `the error band 2 × ${round(e)} is narrower than samplesPerInsert × insertBatch + batchSize = ${round(need)}: sampling and inserting could block each other forever`,
      hint: `use ${fix}`,
    });
  }
  if (ctx.capacity !== null && cfg.minSizeToSample > ctx.capacity)
    throw new ConfigError({
      path: `${path}.minSizeToSample`,
      message: `${cfg.minSizeToSample} is above the buffer capacity ${ctx.capacity}: sampling could never start`,
    });
  if (r > ctx.maxUses)
    throw new ConfigError({
      path: `${path}.samplesPerInsert`,
      message: `${r} samples per insert is more than the sampler's ${ctx.maxUses} use(s) per experience: the sampler would run dry`,
    });
}

function round(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(3);
}
