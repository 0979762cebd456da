import { defineSelector as define, type SelectorDefinition } from '../definition.ts';
import { AdarftParamsSchema, AdarftSelector } from './adarft.ts';
import { DotsParamsSchema, DotsSelector } from './dots.ts';
import { DumpParamsSchema, DumpSelector } from './dump.ts';
import { LiloParamsSchema, LiloSelector } from './lilo.ts';
import { MoppsParamsSchema, MoppsSelector } from './mopps.ts';
import { PclParamsSchema, PclSelector } from './pcl.ts';
import { PlrParamsSchema, PlrSelector } from './plr.ts';
import { SecParamsSchema, SecSelector } from './sec.ts';
import { VcrlParamsSchema, VcrlSelector } from './vcrl.ts';

/** The published online selection methods since BOTS (docs/selection-zoo.md), one file each. */
export const zooSelectorDefinitions: SelectorDefinition[] = [
  define({
    name: 'mopps',
    description: 'MoPPS: Beta posteriors with retention, Thompson draws closest to a target rate',
    params: MoppsParamsSchema,
    create: (p, { seed }) => new MoppsSelector(seed, p),
  }),
  define({
    name: 'dots',
    description:
      'DOTS: reference-set rollouts every μ steps, attention-predicted difficulty, softmax toward 0.5',
    params: DotsParamsSchema,
    create: (p, { seed }) => new DotsSelector(seed, p),
  }),
  define({
    name: 'lilo',
    description: 'LILO: learnability p(1−p) sampling by rejection',
    params: LiloParamsSchema,
    create: (p, { seed }) => new LiloSelector(seed, p),
  }),
  define({
    name: 'adarft',
    description: 'AdaRFT: tasks closest to a target difficulty moved by η·tanh(α(R̄−β))',
    params: AdarftParamsSchema,
    create: (p, { seed }) => new AdarftSelector(seed, p),
  }),
  define({
    name: 'plr',
    description: 'Prioritized Level Replay: rank-based score plus staleness, replay or new',
    params: PlrParamsSchema,
    create: (p, { seed }) => new PlrSelector(seed, p),
  }),
  define({
    name: 'sec',
    description: 'SEC: bandit over categories, TD(0) on mean |advantage|, Boltzmann sampling',
    params: SecParamsSchema,
    create: (p, { seed }) => new SecSelector(seed, p),
  }),
  define({
    name: 'dump',
    description: 'DUMP: UCB over distributions on windowed mean |advantage|, softmax sampling',
    params: DumpParamsSchema,
    create: (p, { seed }) => new DumpSelector(seed, p),
  }),
  define({
    name: 'vcrl',
    description: 'VCRL: group reward variance, a memory bank of high-variance prompts refills filtered slots',
    params: VcrlParamsSchema,
    create: (p, { seed }) => new VcrlSelector(seed, p),
  }),
  define({
    name: 'pcl',
    description: 'PCL: an online value model V(x) ≈ p(x), candidates closest to 0.5',
    params: PclParamsSchema,
    create: (p, { seed }) => new PclSelector(seed, p),
  }),
];
