import * as tf from '@tensorflow/tfjs';
import { ConfigError, DataError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import type { GenerateRequest, Generation, RolloutModel } from '../models/rollout-model.ts';
import { type SelectBackendOptions, selectBackend } from './backend.ts';
import { type TinyPolicyConfig, type TinyPolicyConfigInput, TinyPolicyConfigSchema } from './config.ts';
import type { TinyWeights } from './gru.ts';
import { initialValues, type ParamSpec, paramSpecs, specSize } from './params.ts';
import { promptStates, sampleFrom, sampleRows } from './policy-generate.ts';
import { decodeTokens, EOS_ID, encodeText, PAD_ID, VOCAB_SIZE } from './vocab.ts';

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
    const rows = sampleRows(requests, this.rng);
    const out: Generation[][] = requests.map(() => []);
    if (rows.length === 0) return out;
    const { tokens, logprobs } = sampleFrom(this.w, promptStates(this.w, prompts, rows), rows);
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
