import { z } from 'zod';
import { parseConfig } from '../core/config.ts';
import { normalizePlugin, type PluginConfig, pluginSlotSchema } from '../core/plugin.ts';
import { Registry } from '../core/registry.ts';
import { BOTS_DEFAULTS, BotsSelector } from './bots.ts';
import { defineSelector, type SelectorBuildContext, type SelectorDefinition } from './definition.ts';
import { DiverseSelector } from './diverse.ts';
import { HeadroomParamsSchema, HeadroomSelector } from './headroom.ts';
import { MixedSelector } from './mixed.ts';
import { OfflineEasy2HardSelector } from './offline-easy2hard.ts';
import { PassRateSelector } from './pass-rate.ts';
import { ProgressParamsSchema, ProgressSelector } from './progress.ts';
import { randomSelector } from './random.ts';
import { sequentialSelector } from './sequential.ts';
import { SHARED_ABILITY_DEFAULTS, SharedAbilitySelector } from './shared-ability.ts';
import { shuffleSelector } from './shuffle.ts';
import type { Selector, SelectorTaskView } from './types.ts';
import { zooSelectorDefinitions } from './zoo/definitions.ts';

export { defineSelector, type SelectorBuildContext, type SelectorDefinition } from './definition.ts';

/** `selector: { type: bots, params: { … } }` in YAML. */
export interface SelectorConfig {
  type: string;
  params?: Record<string, unknown> | undefined;
}

export const SelectorConfigSchema: z.ZodType<SelectorConfig> = z.object({
  type: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});

const unit = z.number().min(0).max(1);
const nonneg = z.number().nonnegative();

export const BotsParamsSchema = z.strictObject({
  m: z.number().positive().default(BOTS_DEFAULTS.m),
  lambda: unit.default(BOTS_DEFAULTS.lambda),
  rho: unit.default(BOTS_DEFAULTS.rho),
  target: unit.default(BOTS_DEFAULTS.target),
  tau: nonneg.default(BOTS_DEFAULTS.tau),
  sample: z.enum(['thompson', 'mean']).default(BOTS_DEFAULTS.sample),
  adaptiveRho: z.boolean().default(BOTS_DEFAULTS.adaptiveRho),
  adaptiveRhoThreshold: nonneg.default(BOTS_DEFAULTS.adaptiveRhoThreshold),
  adaptiveRhoFactor: unit.default(BOTS_DEFAULTS.adaptiveRhoFactor),
  adaptiveRhoMin: unit.default(BOTS_DEFAULTS.adaptiveRhoMin),
  capabilityDiscount: unit.default(BOTS_DEFAULTS.capabilityDiscount),
  capabilityGuard: nonneg.default(BOTS_DEFAULTS.capabilityGuard),
  capabilityMin: z.number().default(BOTS_DEFAULTS.capabilityMin),
  capabilityMax: z.number().default(BOTS_DEFAULTS.capabilityMax),
  weakColumn: z.string().min(1).default(BOTS_DEFAULTS.weakColumn),
  strongColumn: z.string().min(1).default(BOTS_DEFAULTS.strongColumn),
  priorAlpha: z.number().positive().default(BOTS_DEFAULTS.priorAlpha),
  priorBeta: z.number().positive().default(BOTS_DEFAULTS.priorBeta),
  shortlist: z.number().int().nonnegative().default(BOTS_DEFAULTS.shortlist),
  grid: z.number().int().min(0).max(1024).default(BOTS_DEFAULTS.grid),
  updatePer: z.enum(['step', 'feedback']).default(BOTS_DEFAULTS.updatePer),
  capabilityBy: z.enum(['all', 'domain']).default(BOTS_DEFAULTS.capabilityBy),
  trainedGain: unit.default(BOTS_DEFAULTS.trainedGain),
  taskOffset: unit.default(BOTS_DEFAULTS.taskOffset),
  domainTrack: z.boolean().default(BOTS_DEFAULTS.domainTrack),
});

const S = SHARED_ABILITY_DEFAULTS;
export const SharedAbilityParamsSchema = z.strictObject({
  target: z.number().gt(0).lt(1).default(S.target),
  weakColumn: z.string().min(1).default(S.weakColumn),
  strongColumn: z.string().min(1).default(S.strongColumn),
  features: z.array(z.string().min(1)).default(S.features),
  refClip: z.number().gt(0).lt(0.5).default(S.refClip),
  priorWeakWeight: z.number().default(S.priorWeakWeight),
  priorStrongWeight: z.number().default(S.priorStrongWeight),
  priorWeightSd: z.number().positive().default(S.priorWeightSd),
  priorOffsetSd: z.number().positive().default(S.priorOffsetSd),
  weightDrift: nonneg.default(S.weightDrift),
  offsetDrift: nonneg.default(S.offsetDrift),
  residualSd: z.number().positive().default(S.residualSd),
  learnResidualSd: z.boolean().default(S.learnResidualSd),
  residualDrift: nonneg.default(S.residualDrift),
  practiceEffect: z.boolean().default(S.practiceEffect),
  priorPractice: z.number().default(S.priorPractice),
  priorPracticeSd: z.number().positive().default(S.priorPracticeSd),
  practiceDrift: nonneg.default(S.practiceDrift),
  learningRate: unit.default(S.learningRate),
  mode: z.enum(['expected', 'thompson']).default(S.mode),
  width: z.number().positive().default(S.width),
  shortlist: z.number().int().nonnegative().default(S.shortlist),
  candidates: z.number().int().nonnegative().default(S.candidates),
  grid: z.number().int().min(0).max(1024).default(S.grid),
  search: z.enum(['grid', 'scan']).default(S.search),
});

const SortKeySchema = z.strictObject({
  feature: z.string().min(1),
  order: z.enum(['asc', 'desc']).default('asc'),
});

export const Easy2HardParamsSchema = z
  .strictObject({
    /** Sort keys, most significant first. */
    keys: z.array(SortKeySchema).min(1).optional(),
    /** Shorthand: one column or several, all in `order`. */
    feature: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    order: z.enum(['asc', 'desc']).default('asc'),
  })
  .refine((p) => (p.keys === undefined) !== (p.feature === undefined), {
    message: 'give either keys: [{ feature, order }] or feature (one name or a list)',
    path: ['keys'],
  });

export const PassRateParamsSchema = z.strictObject({
  target: unit.default(0.5),
  priorStrength: z.number().positive().default(2),
  decay: unit.default(0.5),
  globalRate: unit.default(0.1),
});

/** The built-in selectors (the mixing selector is registered separately, it builds the others). */
export const selectorDefinitions: SelectorDefinition[] = [
  sequentialSelector,
  shuffleSelector,
  randomSelector,
  defineSelector({
    name: 'offline_easy2hard',
    description: 'a fixed curriculum sorted by feature columns (direction per column)',
    params: Easy2HardParamsSchema,
    create: (p, { seed }) => {
      const keys =
        p.keys ??
        (Array.isArray(p.feature) ? p.feature : [p.feature!]).map((feature) => ({ feature, order: p.order }));
      return new OfflineEasy2HardSelector(seed, keys);
    },
  }),
  defineSelector({
    name: 'pass_rate',
    description: 'online baseline: smoothed observed pass rate, closest to a target',
    params: PassRateParamsSchema,
    create: (p, { seed }) => new PassRateSelector(seed, p),
  }),
  defineSelector({
    name: 'bots',
    description: 'BOTS: Beta posteriors with explicit and reference-interpolated implicit evidence',
    params: BotsParamsSchema,
    create: (p, { seed }) => new BotsSelector(seed, p),
  }),
  defineSelector({
    name: 'shared_ability',
    description: 'Bayesian shared-ability model in log-odds space (references, domains, residuals, practice)',
    params: SharedAbilityParamsSchema,
    create: (p, { seed }) => new SharedAbilitySelector(seed, p),
  }),
  defineSelector({
    name: 'headroom',
    description:
      "shared_ability's pass rates, each task weighted by its category's headroom (what is left to learn)",
    params: HeadroomParamsSchema,
    create: (p, { seed }) => new HeadroomSelector(seed, p),
  }),
  defineSelector({
    name: 'progress',
    description:
      'category shares by measured learning progress (|change of the pass rate|) over a random-selection floor',
    params: ProgressParamsSchema,
    create: (p, { seed }) => new ProgressSelector(seed, p),
  }),
];

/** `mixed`'s params around a selector-slot schema: the stand-alone form, or the run's (nested checks). */
function mixedParams(slot: z.ZodType) {
  return z.strictObject({
    tasksets: z
      .array(
        z.strictObject({
          taskset: z.string().min(1),
          weight: z.number().nonnegative().optional(),
          selector: slot,
        }),
      )
      .min(1),
  });
}
export const MixedParamsSchema = mixedParams(SelectorConfigSchema);

const mixedSelector = defineSelector({
  name: 'mixed',
  description: 'several task sets, each with its own selector, mixed by weight or size',
  params: MixedParamsSchema,
  paramsWith: mixedParams,
  create: (p, ctx) =>
    new MixedSelector(
      p.tasksets.map((t, i) => ({
        taskset: t.taskset,
        ...(t.weight !== undefined ? { weight: t.weight } : {}),
        selector: ctx.build(
          normalizePlugin(t.selector),
          ctx.seed + i + 1,
          `${ctx.path}.params.tasksets[${i}].selector`,
        ),
      })),
      ctx.seed,
    ),
});

/** `diverse`'s params around a selector-slot schema (see mixedParams). */
function diverseParams(slot: z.ZodType) {
  return z.strictObject({
    selector: slot.describe('The selector whose candidates are re-ranked (any registered one).'),
    lambda: unit
      .default(0.5)
      .describe("Weight of the inner selector's order; 1 − lambda weighs dissimilarity."),
    embedding: z
      .string()
      .regex(/^meta\.[^.]+$/, 'must name a top-level meta key (meta.<key>)')
      .default('meta.embedding')
      .describe('The meta key holding each task’s vector (what embed wrote).'),
    pool: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(4)
      .describe('Candidates asked of the inner selector per task picked.'),
  });
}
export const DiverseParamsSchema = diverseParams(SelectorConfigSchema);

const diverseSelector = defineSelector({
  name: 'diverse',
  description: 'any selector, its candidates re-ranked for embedding diversity (maximal marginal relevance)',
  params: DiverseParamsSchema,
  paramsWith: diverseParams,
  create: (p, ctx) =>
    new DiverseSelector(
      ctx.build(normalizePlugin(p.selector), ctx.seed, `${ctx.path}.params.selector`),
      { lambda: p.lambda, embedding: p.embedding, pool: p.pool },
      ctx.seed,
    ),
});

/**
 * Selectors by config name, built-ins and the zoo. A fresh registry per call: each run (or server)
 * owns its own, so a selector one run registers is never seen by another.
 */
export function selectorRegistry(): Registry<SelectorDefinition> {
  const reg = new Registry<SelectorDefinition>('selector');
  for (const def of [...selectorDefinitions, ...zooSelectorDefinitions, mixedSelector, diverseSelector])
    reg.register(def as SelectorDefinition);
  return reg;
}

/**
 * The schema of a selector slot in `registry`: a name or `{ type, params }`, each selector's params
 * checked, nested selectors (mixed's, diverse's) included, against the same registry.
 */
export function selectorSlotSchema(registry: Registry<SelectorDefinition>, opts: { modules?: boolean } = {}) {
  return pluginSlotSchema(registry, opts);
}

/**
 * Build a selector from a slot whose params are already parsed (by the door's config schema, or
 * by buildSelector): looked up in `registry`, nested selectors too. Nothing is parsed again.
 */
export function buildParsedSelector(
  slot: PluginConfig,
  seed: number,
  path: string,
  registry: Registry<SelectorDefinition>,
  resolved?: { def: SelectorDefinition; params: unknown },
): Selector {
  const def = resolved?.def ?? registry.get((slot as { type: string }).type, `${path}.type`);
  const ctx: SelectorBuildContext = {
    seed,
    path,
    selectors: registry,
    build: (child, childSeed, childPath) => buildParsedSelector(child, childSeed, childPath, registry),
  };
  return def.create(resolved ? resolved.params : slot.params, ctx);
}

/**
 * Validate a selector config (nested selectors included, all against `registry`, default the
 * built-ins) and build the (uninitialised) selector. `path` names it in errors.
 */
export function buildSelector(
  config: SelectorConfig | string,
  seed: number,
  path = 'selector',
  registry: Registry<SelectorDefinition> = selectorRegistry(),
): Selector {
  // A bare name is `{ type: name }`, so its params get their defaults in this one parse.
  const value = typeof config === 'string' ? { type: config } : config;
  const slot = parseConfig(selectorSlotSchema(registry, { modules: false }), value, { path });
  return buildParsedSelector(slot, seed, path, registry);
}

/** Build a selector from its config and hand it its tasks. */
export function createSelector(
  config: SelectorConfig,
  view: SelectorTaskView,
  seed: number,
  path = 'selector',
  registry?: Registry<SelectorDefinition>,
): Selector {
  const sel = buildSelector(config, seed, path, registry);
  sel.init(view);
  return sel;
}
