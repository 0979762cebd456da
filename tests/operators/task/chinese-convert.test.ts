import { describe, expect, it } from 'vitest';
import { CHINESE_CONVERT_MODES, chineseConvertOp } from '../../../src/operators/task/chinese-convert.ts';
import { run, task } from './helpers.ts';

const convert = async (mode: string, text: string) =>
  (await run(chineseConvertOp, { mode }, [task('t', text)])).rows[0]!.prompt;

/** Golden conversions for each of OpenCC's 14 modes (Data-Juicer's chinese_convert_mapper `mode`). */
const GOLDEN: Array<[mode: string, input: string, output: string]> = [
  ['s2t', '我们用鼠标和软件学习汉语，头发很长。', '我們用鼠標和軟件學習漢語，頭髮很長。'],
  ['t2s', '我們用鼠標和軟件學習漢語，頭髮很長。', '我们用鼠标和软件学习汉语，头发很长。'],
  ['s2tw', '我们学习汉语，头发很长。', '我們學習漢語，頭髮很長。'],
  ['tw2s', '我們用滑鼠和軟體學習漢語。', '我们用滑鼠和软体学习汉语。'],
  ['s2hk', '我们学习汉语，头发很长。', '我們學習漢語，頭髮很長。'],
  ['hk2s', '我們學習漢語，裏面很長。', '我们学习汉语，里面很长。'],
  // with Taiwanese phrases: 鼠标 → 滑鼠, 软件 → 軟體, and back
  ['s2twp', '我们用鼠标和软件学习汉语。', '我們用滑鼠和軟體學習漢語。'],
  ['tw2sp', '我們用滑鼠和軟體學習漢語。', '我们用鼠标和软件学习汉语。'],
  // OpenCC's standard Traditional against the regional forms
  ['t2tw', '裏面 爲了 著名', '裡面 為了 著名'],
  ['tw2t', '台灣 裡面 為了', '台灣 裏面 爲了'],
  ['t2hk', '裏面 爲了', '裏面 為了'],
  ['hk2t', '裡面 為了 綫', '裡面 爲了 線'],
  // Japanese: Kyūjitai ↔ Shinjitai; kana untouched
  ['t2jp', '國語の學習は舊字體より新字體で行う。', '国語の学習は旧字体より新字体で行う。'],
  ['jp2t', '国語の学習は旧字体より新字体で行う。', '國語の學習は舊字體より新字體で行う。'],
];

describe('chinese_convert', () => {
  it('has the 14 modes of Data-Juicer, no more', () => {
    expect(Object.keys(CHINESE_CONVERT_MODES).sort()).toEqual(GOLDEN.map(([m]) => m).sort());
  });

  for (const [mode, input, output] of GOLDEN)
    it(`${mode}: ${input} → ${output}`, async () => {
      expect(await convert(mode, input)).toBe(output);
    });

  it('leaves English, digits, punctuation and kana as they are, in every mode', async () => {
    const english = 'The bridge opens at 9:30, and tickets cost $4.50 (cash only).';
    for (const mode of Object.keys(CHINESE_CONVERT_MODES)) {
      expect(await convert(mode, english)).toBe(english);
      expect(await convert(mode, 'ありがとう、またね。')).toBe('ありがとう、またね。');
    }
  });

  it('converts mixed text in place and keeps the rest of the row; s2t is the default', async () => {
    const out = await run(chineseConvertOp, {}, [
      task('m', 'Learn 汉语 in 3 months: 学习很快乐!', { answer: '汉语' }),
    ]);
    expect(out.rows[0]!.prompt).toBe('Learn 漢語 in 3 months: 學習很快樂!');
    expect(out.rows[0]!.answer).toBe('汉语');
    expect(out.dropped).toEqual([]);
  });

  it('refuses an unknown mode, naming the modes', () => {
    const r = chineseConvertOp.params.safeParse({ mode: 's2jp' });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain('t2jp');
  });
});
