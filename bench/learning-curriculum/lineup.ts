// The selectors of the real-learner bench under the protocol (bench/protocol, docs/selection-zoo.md):
// every ranked method runs at its paper's (or, for Winnow's own, the library's) defaults, reads the
// pool's own columns, and pays for any column measured on this learner. The variants tuned on seeds
// 1–5 and the oracles are kept by name, reported beside the ranking.

import type { SelectorConfig } from '../../src/selectors/registry.ts';
import type { StageConfig } from '../../src/selectors/stages/registry.ts';
import type { InformationSource } from '../protocol/information.ts';
import { HEADROOM_TUNING, PUBLISHED_DEFAULTS, type TuningRule } from '../protocol/tuning.ts';
import type { SelectorRecipe } from './learner.ts';
import type { CurriculumSelectorName } from './spec.ts';

/**
 * Which reference columns a method reads:
 * - none: the pool's columns only;
 * - measured: weak_pass_rate = this learner's start pass rates measured with k rollouts per task
 *   (charged k × tasks), strong_pass_rate = another model's exact rates (the SFT reference, free);
 * - exact: the same columns with this learner's exact start pass rates, which no budget buys (an oracle).
 */
export type ReferenceUse = 'none' | 'measured' | 'exact';

export interface CurriculumEntry {
  recipe: SelectorRecipe;
  references: ReferenceUse;
  tuning: TuningRule;
  description: string;
}

/** The default target pass rate p* of the adaptive selectors and the oracle (the papers' 0.5). */
export const DEFAULT_TARGET_PASS_RATE = 0.5;

/** The weight ρ of BOTS's reference evidence in bots_ref_tuned (chosen on seeds 1–5). */
export const DEFAULT_BOTS_RHO = 0.2;

const TUNED: TuningRule = { kind: 'asymmetric', note: 'by hand on seeds 1–5 (docs/selectors.md, "Tuning")' };

/** BOTS as tuned on seeds 1–5 (docs/selectors.md, "Tuning"): kept for bots_tuned only. */
export const BOTS_EXPLICIT_TUNED = { rho: 0, shortlist: 0, updatePer: 'step', trainedGain: 0.3 } as const;
export const BOTS_DOMAIN_TUNED = {
  shortlist: 0,
  updatePer: 'step',
  m: 64,
  rho: 0.2,
  trainedGain: 0.3,
  domainTrack: true,
  taskOffset: 0.3,
  capabilityDiscount: 0.7,
} as const;
export const BOTS_REF_TUNED = {
  shortlist: 0,
  updatePer: 'step',
  m: 64,
  capabilityBy: 'domain',
  trainedGain: 0.3,
  taskOffset: 0.3,
} as const;

const entry = (
  config: SelectorConfig,
  description: string,
  extra: { stages?: StageConfig[]; references?: ReferenceUse; tuning?: TuningRule } = {},
): CurriculumEntry => ({
  recipe: { config, ...(extra.stages ? { stages: extra.stages } : {}) },
  references: extra.references ?? 'none',
  tuning: extra.tuning ?? PUBLISHED_DEFAULTS,
  description,
});

/** The line-up; `orderFeature` is the pool column the curriculum methods order tasks by. */
export function curriculumLineup(
  target: number,
  rho: number,
  orderFeature: string,
): Record<CurriculumSelectorName, CurriculumEntry> {
  // BOTS at the paper's defaults (m 16, λ 0.1, ρ 0.1, Thompson), every task scored (no shortlist).
  const bots: SelectorConfig = { type: 'bots', params: { shortlist: 0, target } };
  const successor: SelectorConfig = { type: 'shared_ability', params: { target } };
  const thompson: SelectorConfig = {
    type: 'shared_ability',
    params: { target, mode: 'thompson', shortlist: 0 },
  };
  return {
    random: entry({ type: 'random' }, 'uniform, no repeats in a batch'),
    bots: entry(bots, 'BOTS at the paper defaults, explicit and implicit evidence, no reference columns'),
    bots_ref: entry(bots, 'BOTS at the paper defaults with the reference columns (measured, charged)', {
      references: 'measured',
    }),
    shared_ability: entry(successor, 'the successor at the library defaults (greedy on expected usefulness)'),
    shared_ability_ref: entry(
      successor,
      'the successor at the library defaults with the reference columns (measured, charged)',
      {
        references: 'measured',
      },
    ),
    // issue 41 item 3: Winnow's headroom selector (docs/selection-zoo.md). Its defaults were picked
    // from 8 settings on curriculum seeds 1–3, more than the others got: reported, not ranked.
    headroom: entry(
      { type: 'headroom' },
      "the headroom selector: shared_ability's pass rates, level shares by learnability × headroom",
      { tuning: HEADROOM_TUNING },
    ),
    // issue 41 item 3: Winnow's learning-progress selector at the library defaults (fixed before any run;
    // docs/selection-zoo.md, "`progress`").
    progress: entry(
      { type: 'progress' },
      "the progress selector: level shares by |change of the pass rate| over random's split as a floor",
    ),
    offline_easy2hard: entry(
      { type: 'offline_easy2hard', params: { feature: orderFeature, order: 'asc' } },
      `fixed curriculum by ${orderFeature}, easy to hard, then again`,
    ),
    // The zoo at its papers' defaults, on the pool's own columns.
    mopps: entry({ type: 'mopps', params: { target } }, 'MoPPS: Beta posteriors with retention, Thompson'),
    dots: entry({ type: 'dots' }, 'DOTS: reference set every 10 updates, attention over features'),
    lilo: entry({ type: 'lilo' }, 'LILO: learnability p(1−p) by rejection'),
    adarft: entry(
      { type: 'adarft', params: { feature: orderFeature } },
      'AdaRFT: target difficulty moved by η·tanh(α(R̄−β))',
    ),
    plr: entry({ type: 'plr' }, 'Prioritized Level Replay: rank score + staleness'),
    sec: entry({ type: 'sec' }, 'SEC: Boltzmann bandit over levels, TD(0) on |advantage|'),
    dump: entry({ type: 'dump' }, 'DUMP: UCB over levels on windowed |advantage|'),
    vcrl: entry({ type: 'vcrl' }, 'VCRL: variance memory bank'),
    pcl: entry({ type: 'pcl', params: { target } }, 'PCL: online value model, candidates closest to p*'),
    dapo_ds: entry({ type: 'random' }, 'random + DAPO over-sampling (1.5× per round)', {
      stages: [{ type: 'dapo_ds' }],
    }),
    greso: entry({ type: 'random' }, 'random + GRESO skipping', { stages: [{ type: 'greso' }] }),
    speed: entry({ type: 'random' }, 'random + SPEED screening (4 of 8 rollouts)', {
      stages: [{ type: 'speed' }],
    }),
    'bots+speed': entry(bots, 'BOTS (paper defaults), SPEED screening', { stages: [{ type: 'speed' }] }),
    'shared_ability+speed': entry(successor, 'the successor (library defaults), SPEED screening', {
      stages: [{ type: 'speed' }],
    }),
    // Oracles: reported, never ranked.
    oracle: {
      recipe: { oracle: true, target },
      references: 'none',
      tuning: PUBLISHED_DEFAULTS,
      description: 'true pass rates (exact, every 2nd update), closest to the target (the bound)',
    },
    bots_ref_tuned: entry(
      { type: 'bots', params: { ...BOTS_REF_TUNED, target, rho } },
      "the earlier headline bots_ref: tuned on seeds 1–5, this learner's exact start pass rates for free",
      { references: 'exact', tuning: TUNED },
    ),
    // Tuned on seeds 1–5: reported, not ranked.
    bots_tuned: entry(
      { type: 'bots', params: { ...BOTS_EXPLICIT_TUNED, target } },
      'BOTS as tuned on seeds 1–5, no reference columns',
      {
        tuning: TUNED,
      },
    ),
    bots_domain: entry(
      { type: 'bots', params: { ...BOTS_DOMAIN_TUNED, target } },
      "BOTS tuned on seeds 1–5, implicit evidence toward each level's pass rate (domainTrack)",
      { tuning: TUNED },
    ),
    shared_ability_thompson: entry(thompson, 'the successor in Thompson mode (chosen on seeds 1–5)', {
      tuning: TUNED,
    }),
    shared_ability_cand: entry(
      {
        type: 'shared_ability',
        params: { target, candidates: 4, features: ['digits', 'operands', 'carries', 'difficulty'] },
      },
      'the successor over a 4× uniform candidate set, pool columns as regressors (tuned on seeds 1–5)',
      { tuning: TUNED },
    ),
  };
}

/** What an entry reads, as the protocol charges it (information.ts). */
export function entryInformation(
  e: CurriculumEntry,
  poolColumns: readonly string[],
  tasks: number,
  referenceRollouts: number,
): InformationSource[] {
  const pool: InformationSource = { kind: 'pool_columns', columns: [...poolColumns] };
  if ('oracle' in e.recipe) return [pool, { kind: 'oracle', columns: ['true_pass_rate (during the run)'] }];
  const strong: InformationSource = {
    kind: 'reference_model',
    columns: ['strong_pass_rate'],
    model: 'the warm start after a short SFT on the pool (another model)',
  };
  if (e.references === 'measured')
    return [
      pool,
      { kind: 'learner_pass_rates', columns: ['weak_pass_rate'], rolloutsPerTask: referenceRollouts, tasks },
      strong,
    ];
  if (e.references === 'exact')
    return [pool, { kind: 'oracle', columns: ['weak_pass_rate (exact, this learner)'] }, strong];
  return [pool];
}
