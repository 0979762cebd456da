import * as tf from '@tensorflow/tfjs';
import { ConfigError, DataError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../models/rollout-model.ts';
import { type SelectBackendOptions, selectBackend } from './backend.ts';
import { type TinyPolicyConfig, type TinyPolicyConfigInput, TinyPolicyConfigSchema } from './config.ts';
import { headLogits, oneHotRows, stackStep, type TinyWeights } from './gru.ts';
import { initialValues, type ParamSpec, paramSpecs, specSize } from './params.ts';
import { sampleToken } from './sampler.ts';
import { decodeTokens, EOS_ID, encodeText, PAD_ID, VOCAB_SIZE } from './vocab.ts';

/** Default completion budget: arithmetic answers are at most 6 characters plus EOS. */
export const TINY_DEFAULT_MAX_TOKENS = 8;

export interface TinyPolicyOptions {
  /** Seed of the stream that seeds requests which come without their own `seed`. */
  sampleSeed?: number;
  /** Backend preference, passed to selectBackend (WINNOW_TF_BACKEND still wins). */
  backend?: SelectBackendOptions['prefer'];
}

/**
 * The built-in tiny policy: a character-level GRU that runs (and trains) on CPU through
 * TensorFlow.js. Sampling draws come from `Rng`, so a request with a seed always returns the
 * same completions. Response `tokens` include the closing EOS when the model stopped, because
 * stopping is an action the trainer must credit; `text` never contains it.
 */
export class TinyPolicy implements RolloutModel {
  readonly name: string = 'tiny-policy';
  readonly config: TinyPolicyConfig;
  readonly specs: readonly ParamSpec[];
  /** Trainable variables in spec order (the trainer updates these in place). */
  readonly variables: readonly tf.Variable[];
  private readonly rng: Rng;
  private readonly w: TinyWeights;
  private disposed = false;

  /** Use TinyPolicy.create (it selects the backend first); this constructor assumes one is ready. */
  constructor(config: TinyPolicyConfigInput = {}, options: TinyPolicyOptions = {}, values?: Float32Array[]) {
    const parsed = TinyPolicyConfigSchema.safeParse(config);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new ConfigError({ path: `policy.${issue.path.join('.')}`, message: issue.message });
    }
    this.config = parsed.data;
    this.specs = paramSpecs(this.config);
    const init = values ?? initialValues(this.config);
    if (init.length !== this.specs.length) {
      throw new ConfigError({
        path: 'policy.weights',
        message: `expected ${this.specs.length} weight tensors, got ${init.length}`,
      });
    }
    this.variables = this.specs.map((spec, i) => {
      const v = init[i]!;
      if (v.length !== specSize(spec)) {
        throw new ConfigError({
          path: `policy.weights.${spec.name}`,
          message: `expected ${specSize(spec)} values (shape [${spec.shape.join(', ')}]), got ${v.length}`,
        });
      }
      return tf.variable(tf.tensor(v, spec.shape, 'float32'), true, `${spec.name}#${tinyUid()}`);
    });
    this.rng = new Rng(`tiny-policy-sample:${options.sampleSeed ?? 0}`);
    this.w = this.buildWeights();
  }

  /** Select the tf backend (once per process), then build a policy with seeded initial weights. */
  static async create(
    config: TinyPolicyConfigInput = {},
    options: TinyPolicyOptions = {},
  ): Promise<TinyPolicy> {
    await selectBackend(options.backend === undefined ? {} : { prefer: options.backend });
    return new TinyPolicy(config, options);
  }

  private buildWeights(): TinyWeights {
    const byName = new Map(this.specs.map((s, i) => [s.name, this.variables[i]!] as const));
    const get = <T extends tf.Tensor>(name: string) => byName.get(name) as unknown as T;
    const mask = new Float32Array(VOCAB_SIZE);
    mask[PAD_ID] = -1e9;
    return {
      hidden: this.config.hidden,
      vocabSize: this.config.vocabSize,
      layers: Array.from({ length: this.config.layers }, (_, l) => ({
        wxz: get<tf.Tensor2D>(`gru${l}.wxz`),
        wxr: get<tf.Tensor2D>(`gru${l}.wxr`),
        wxn: get<tf.Tensor2D>(`gru${l}.wxn`),
        whz: get<tf.Tensor2D>(`gru${l}.whz`),
        whr: get<tf.Tensor2D>(`gru${l}.whr`),
        whn: get<tf.Tensor2D>(`gru${l}.whn`),
        bz: get<tf.Tensor1D>(`gru${l}.bz`),
        br: get<tf.Tensor1D>(`gru${l}.br`),
        bxn: get<tf.Tensor1D>(`gru${l}.bxn`),
        bhn: get<tf.Tensor1D>(`gru${l}.bhn`),
      })),
      outW: get<tf.Tensor2D>('out.w'),
      outB: get<tf.Tensor1D>('out.b'),
      headMask: tf.keep(tf.tensor1d(mask)),
    };
  }

  /** The weights as tensors (variables), for the trainer's forward pass. */
  weights(): TinyWeights {
    this.assertLive();
    return this.w;
  }

  /** A copy of every weight, in spec order. */
  getWeights(): Float32Array[] {
    this.assertLive();
    return this.variables.map((v) => Float32Array.from(v.dataSync() as Float32Array));
  }

  /** Overwrite every weight (e.g. a weight sync from the trainer's copy). */
  setWeights(values: readonly Float32Array[]): void {
    this.assertLive();
    if (values.length !== this.variables.length) {
      throw new ConfigError({
        path: 'policy.weights',
        message: `expected ${this.variables.length} weight tensors, got ${values.length}`,
      });
    }
    this.variables.forEach((v, i) => {
      const spec = this.specs[i]!;
      if (values[i]!.length !== specSize(spec)) {
        throw new ConfigError({
          path: `policy.weights.${spec.name}`,
          message: `expected ${specSize(spec)} values, got ${values[i]!.length}`,
        });
      }
      tf.tidy(() => v.assign(tf.tensor(values[i]!, spec.shape, 'float32')));
    });
  }

  /** An independent copy with the same config and weights (e.g. a frozen reference policy). */
  clone(options: TinyPolicyOptions = {}): TinyPolicy {
    return new TinyPolicy(this.config, options, this.getWeights());
  }

  /** Prompt token ids as the model sees them. */
  encodePrompt(request: Pick<GenerateRequest, 'prompt' | 'messages'>): number[] {
    const text = promptText(request);
    if (text.length === 0) throw new DataError({ message: 'tiny policy: the prompt is empty' });
    return encodeText(text);
  }

  async generate(request: GenerateRequest): Promise<Generation[]> {
    return (await this.generateBatch([request]))[0]!;
  }

  /**
   * Sample every request's `n` completions in one batch: the prompts run together (left-padded,
   * padding masked out of the state), then each generated position is one forward step for all
   * rows. Results are in request order, samples in index order; a request's results depend only
   * on its own prompt, seed and settings, not on what else is in the batch.
   */
  async generateBatch(requests: readonly GenerateRequest[]): Promise<Generation[][]> {
    this.assertLive();
    for (const r of requests) r.signal?.throwIfAborted();
    const prompts = requests.map((r) => this.encodePrompt(r));
    const rows: { req: number; rng: Rng; temperature: number; maxTokens: number }[] = [];
    requests.forEach((r, i) => {
      if (!Number.isInteger(r.n) || r.n < 0) {
        throw new ConfigError({
          path: `requests[${i}].n`,
          message: `expected a non-negative integer, got ${r.n}`,
        });
      }
      const temperature = r.temperature ?? 1;
      if (!(temperature >= 0)) {
        throw new ConfigError({
          path: `requests[${i}].temperature`,
          message: `expected >= 0, got ${temperature}`,
        });
      }
      const maxTokens = r.maxTokens ?? TINY_DEFAULT_MAX_TOKENS;
      if (!Number.isInteger(maxTokens) || maxTokens < 1) {
        throw new ConfigError({
          path: `requests[${i}].maxTokens`,
          message: `expected an integer >= 1, got ${maxTokens}`,
        });
      }
      const base = new Rng(r.seed ?? this.rng.nextUint32());
      for (let j = 0; j < r.n; j++) rows.push({ req: i, rng: base.fork(j), temperature, maxTokens });
    });
    const out: Generation[][] = requests.map(() => []);
    if (rows.length === 0) return out;

    const w = this.w;
    const hidden = w.hidden;
    const nReq = requests.length;
    const pMax = Math.max(...prompts.map((p) => p.length));
    // Prompt pass over the distinct requests, left-padded so every prompt ends at the last step.
    let states: tf.Tensor2D[] = tf.tidy(() => {
      let hs: tf.Tensor2D[] = w.layers.map(() => tf.zeros([nReq, hidden]) as tf.Tensor2D);
      for (let t = 0; t < pMax; t++) {
        // Fresh arrays per step: some backends keep a reference to a tensor's source array.
        const col = new Int32Array(nReq);
        const keep = new Uint8Array(nReq * hidden);
        let padded = false;
        prompts.forEach((p, r) => {
          const k = t - (pMax - p.length);
          col[r] = k >= 0 ? p[k]! : PAD_ID;
          keep.fill(k >= 0 ? 1 : 0, r * hidden, (r + 1) * hidden);
          if (k < 0) padded = true;
        });
        const x = oneHotRows(col, w.vocabSize);
        hs = stackStep(
          w,
          x,
          hs,
          padded ? (tf.tensor2d(keep, [nReq, hidden], 'bool') as tf.Tensor2D) : undefined,
        );
      }
      // Fan each request's final state out to its n sample rows.
      const rowReq = tf.tensor1d(
        Int32Array.from(rows, (row) => row.req),
        'int32',
      );
      return hs.map((h) => tf.gather(h, rowReq) as tf.Tensor2D);
    });

    const nRows = rows.length;
    const V = w.vocabSize;
    const tokens: number[][] = rows.map(() => []);
    const logprobs: number[][] = rows.map(() => []);
    const done = new Uint8Array(nRows);
    const stepMax = Math.max(...rows.map((r) => r.maxTokens));
    try {
      for (let step = 0; step < stepMax; step++) {
        const logits = tf.tidy(() => headLogits(w, states[states.length - 1]!));
        const values = logits.dataSync() as Float32Array;
        logits.dispose();
        const next = new Int32Array(nRows);
        let active = 0;
        for (let i = 0; i < nRows; i++) {
          const row = rows[i]!;
          if (done[i] || step >= row.maxTokens) {
            done[i] = 1;
            next[i] = EOS_ID;
            continue;
          }
          const { token, logprob } = sampleToken(values, i * V, V, row.temperature, row.rng);
          tokens[i]!.push(token);
          logprobs[i]!.push(logprob);
          next[i] = token;
          if (token === EOS_ID) done[i] = 1;
          else active++;
        }
        if (active === 0 || step === stepMax - 1) break;
        const prev = states;
        states = tf.tidy(() => stackStep(w, oneHotRows(next, V), prev));
        for (const s of prev) s.dispose();
      }
    } finally {
      for (const s of states) s.dispose();
    }

    rows.forEach((row, i) => {
      const toks = tokens[i]!;
      const stopped = toks.length > 0 && toks[toks.length - 1] === EOS_ID;
      out[row.req]!.push({
        text: decodeTokens(toks),
        promptTokens: prompts[row.req]!.slice(),
        tokens: toks,
        logprobs: logprobs[i]!,
        finishReason: stopped ? 'stop' : 'length',
      });
    });
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const v of this.variables) v.dispose();
    this.w.headMask.dispose();
  }

  private assertLive(): void {
    if (this.disposed) throw new Error('TinyPolicy: used after dispose()');
  }
}

/** The text the tiny policy reads: the prompt, or the last user turn of a chat. */
export function promptText(request: Pick<GenerateRequest, 'prompt' | 'messages'>): string {
  if (request.prompt !== undefined) return request.prompt;
  const msgs = request.messages ?? [];
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i]!.role === 'user') return msgs[i]!.content;
  return '';
}

let uid = 0;
/** tf variable names must be unique per process; several policies (policy, reference) coexist. */
function tinyUid(): number {
  uid += 1;
  return uid;
}
