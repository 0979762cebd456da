import { createRequire } from 'node:module';
import type * as OpenCCModule from 'opencc-js';
import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/**
 * OpenCC's conversion modes (the names of its config files, as Data-Juicer's
 * chinese_convert_mapper takes them) as opencc-js locales: `cn` Simplified (Mainland), `t`
 * OpenCC's standard Traditional, `tw`/`twp` Taiwan (with Taiwanese phrases), `hk` Hong Kong,
 * `jp` Japanese Shinjitai.
 */
export const CHINESE_CONVERT_MODES = {
  s2t: { from: 'cn', to: 't' },
  t2s: { from: 't', to: 'cn' },
  s2tw: { from: 'cn', to: 'tw' },
  tw2s: { from: 'tw', to: 'cn' },
  s2hk: { from: 'cn', to: 'hk' },
  hk2s: { from: 'hk', to: 'cn' },
  s2twp: { from: 'cn', to: 'twp' },
  tw2sp: { from: 'twp', to: 'cn' },
  t2tw: { from: 't', to: 'tw' },
  tw2t: { from: 'tw', to: 't' },
  hk2t: { from: 'hk', to: 't' },
  t2hk: { from: 't', to: 'hk' },
  t2jp: { from: 't', to: 'jp' },
  jp2t: { from: 'jp', to: 't' },
} as const;

export type ChineseConvertMode = keyof typeof CHINESE_CONVERT_MODES;
const MODES = Object.keys(CHINESE_CONVERT_MODES) as [ChineseConvertMode, ...ChineseConvertMode[]];

/** One converter per mode, built on first use. */
const converters = new Map<ChineseConvertMode, (text: string) => string>();
let openCC: typeof OpenCCModule | undefined;

export function chineseConverter(mode: ChineseConvertMode): (text: string) => string {
  const known = converters.get(mode);
  if (known !== undefined) return known;
  // Loaded on first use: the tables are a few megabytes, and most runs never convert Chinese.
  openCC ??= createRequire(import.meta.url)('opencc-js') as typeof OpenCCModule;
  const c: (text: string) => string = openCC.Converter(CHINESE_CONVERT_MODES[mode]);
  converters.set(mode, c);
  return c;
}

/** True when the text has a character OpenCC's tables could change (CJK ideographs and the like). */
const MAY_CONVERT = /[\u2e80-\u9fff\uf900-\ufaff\u{20000}-\u{3ffff}]/u;

const Params = z.strictObject({
  field: TextFieldSchema.default('prompt'),
  /** OpenCC's mode: s2t, t2s, s2tw, tw2s, s2hk, hk2s, s2twp, tw2sp, t2tw, tw2t, hk2t, t2hk, t2jp, jp2t. */
  mode: z.enum(MODES).default('s2t'),
});

export const chineseConvertOp = defineOperator<Task, typeof Params>({
  name: 'chinese_convert',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Convert Chinese between Simplified, Traditional (OpenCC standard, Taiwan, Hong Kong) and Japanese Shinjitai with OpenCC tables (opencc-js).',
  params: Params,
  create(p) {
    const convert = chineseConverter(p.mode);
    const apply = (t: string) => (MAY_CONVERT.test(t) ? convert(t) : t);
    return {
      name: 'chinese_convert',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, apply);
      },
    };
  },
});
