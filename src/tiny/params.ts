import { Rng } from '../core/rng.ts';
import type { TinyPolicyConfig } from './config.ts';

/**
 * Parameter layout of the tiny policy: per GRU layer one input and one recurrent matrix per gate
 * (z, r, n) and four bias vectors; then the output head. Names and order are part of the
 * saved-weights format.
 */
export interface ParamSpec {
  name: string;
  shape: number[];
  /** Uniform init bound (0 = zeros). */
  bound: number;
}

export function paramSpecs(config: TinyPolicyConfig): ParamSpec[] {
  const h = config.hidden;
  const v = config.vocabSize;
  const specs: ParamSpec[] = [];
  const rec = 1 / Math.sqrt(h);
  for (let l = 0; l < config.layers; l++) {
    const inDim = l === 0 ? v : h;
    // Glorot-style bound for the input maps (one-hot rows would otherwise start tiny), 1/sqrt(h) for the recurrence.
    const inBound = Math.sqrt(6 / (inDim + h));
    for (const g of ['z', 'r', 'n'])
      specs.push({ name: `gru${l}.wx${g}`, shape: [inDim, h], bound: inBound });
    for (const g of ['z', 'r', 'n']) specs.push({ name: `gru${l}.wh${g}`, shape: [h, h], bound: rec });
    for (const b of ['bz', 'br', 'bxn', 'bhn']) specs.push({ name: `gru${l}.${b}`, shape: [h], bound: 0 });
  }
  specs.push({ name: 'out.w', shape: [h, v], bound: Math.sqrt(6 / (h + v)) });
  specs.push({ name: 'out.b', shape: [v], bound: 0 });
  return specs;
}

export function specSize(spec: Pick<ParamSpec, 'shape'>): number {
  return spec.shape.reduce((a, b) => a * b, 1);
}

/** Seeded initial values, one Float32Array per parameter, in spec order. */
export function initialValues(config: TinyPolicyConfig): Float32Array[] {
  const rng = new Rng(`tiny-policy-init:${config.initSeed}`);
  return paramSpecs(config).map((spec) => {
    const out = new Float32Array(specSize(spec));
    if (spec.bound > 0) for (let i = 0; i < out.length; i++) out[i] = (rng.float() * 2 - 1) * spec.bound;
    return out;
  });
}
