import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FlaggedWordMatcher,
  flaggedWordsFilterOp,
} from '../../../src/operators/task/flagged-words-filter.ts';
import {
  shippedStopwords,
  stopwordRatio,
  stopwordsFilterOp,
} from '../../../src/operators/task/stopwords-filter.ts';
import {
  FLAGGED_WORD_LANGUAGES,
  flaggedWordList,
  STOPWORD_LANGUAGES,
} from '../../../src/operators/task/word-lists.ts';
import { ids, reasons, run, task } from './helpers.ts';

const load = createRequire(import.meta.url);
const PARAGRAPHS = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'datasets',
  'langid-paragraphs',
  'sample.jsonl',
);
const paragraphs = readFileSync(PARAGRAPHS, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { lang: string; text: string });
const byLang = (lang: string) => paragraphs.filter((p) => p.lang === lang).map((p) => p.text);

describe('word lists from stopwords-iso and naughty-words', () => {
  it('cover every language of the packages (naughty-words: Quebec French in fr, no Klingon)', () => {
    expect([...STOPWORD_LANGUAGES].sort()).toEqual(Object.keys(load('stopwords-iso')).sort());
    const naughty = Object.keys(load('naughty-words')).filter((k) => k !== 'fr-CA-u-sd-caqc' && k !== 'tlh');
    expect([...FLAGGED_WORD_LANGUAGES].sort()).toEqual(naughty.sort());
    expect(flaggedWordList('fr')).toContain('tabarnak');
  });

  it('are long lists: stopwords-iso plus the segmenter pieces Winnow wrote', () => {
    expect(shippedStopwords('en').length).toBeGreaterThanOrEqual(1298);
    expect(shippedStopwords('zh').length).toBeGreaterThanOrEqual(794);
    expect(shippedStopwords('ja').length).toBeGreaterThanOrEqual(134);
    expect(shippedStopwords('vi').length).toBeGreaterThan(500);
    expect(flaggedWordList('zh').length).toBe(319);
    expect(flaggedWordList('ja').length).toBe(180);
  });
});

describe("stopwords_filter at Data-Juicer's default min_ratio 0.3", () => {
  it('keeps all 16 clean Chinese paragraphs', async () => {
    const zh = byLang('zh');
    expect(zh).toHaveLength(16);
    const r = await run(
      stopwordsFilterOp,
      { lang: ['zh'], minRatio: 0.3 },
      zh.map((t, i) => task(`zh${i}`, t)),
    );
    expect(reasons(r)).toEqual([]);
    expect(r.rows).toHaveLength(16);
  });

  it('keeps the clean English and Japanese paragraphs too, each with its own list', async () => {
    for (const lang of ['en', 'ja'] as const) {
      const texts = byLang(lang);
      const r = await run(
        stopwordsFilterOp,
        { lang: [lang], minRatio: 0.3 },
        texts.map((t, i) => task(`${lang}${i}`, t)),
      );
      expect(r.rows.length, lang).toBe(texts.length);
    }
  });

  it('drops keyword lists and spam in en/zh/ja', async () => {
    const rows = [
      task('en-spam', 'cheap watches replica bags discount shoes wholesale prices'),
      task('zh-spam', '价格优惠欢迎选购手机电脑相机配件批发零售'),
      task('ja-spam', '激安腕時計ブランドバッグ通販送料無料'),
      task('zh-prose', '我们的老师是一个很好的人，他每天都会认真地给我们上课。'),
    ];
    const r = await run(stopwordsFilterOp, { minRatio: 0.3 }, rows);
    expect(ids(r.rows)).toEqual(['zh-prose']);
  });

  it('counts a segmenter word glued from stopwords (了一, 得很) as a stopword, not a content word made of them', () => {
    const zh = new Set(shippedStopwords('zh'));
    // 下 [了一] 场 小雨: 了一 is 了 + 一, both stopwords.
    expect(stopwordRatio('下了一场小雨', zh)).toBe(2 / 4);
    expect(stopwordRatio('苹果香蕉樱桃葡萄', zh)).toBe(0);
  });
});

describe('flagged words matched by words in every script', () => {
  it('finds Japanese and Chinese entries only as whole segmenter words', () => {
    const m = new FlaggedWordMatcher(['エロ', '卖淫', '卖淫女']);
    expect(m.matches('エロイカ交響曲を聴いた')).toEqual([]);
    expect(m.matches('エロ動画サイト')).toEqual(['エロ']);
    expect(m.matches('これはエロい')).toEqual(['エロ']);
    expect(m.matches('你是个卖淫女')).toEqual(['卖淫女']);
    expect(m.matches('卖淫是违法的')).toEqual(['卖淫']);
  });

  it('finds Korean entries at the start of a word (particles follow), not inside one', () => {
    const m = new FlaggedWordMatcher(['욕설']);
    expect(m.matches('그는 욕설을 했다')).toEqual(['욕설']);
    expect(m.matches('그는 무욕설 했다')).toEqual([]);
  });

  it('finds multi-word and mixed-script entries of the lists', () => {
    const m = new FlaggedWordMatcher(flaggedWordList('ja'));
    expect(m.matches('エロティックな写真')).toEqual(['エロティック']);
    const en = new FlaggedWordMatcher(flaggedWordList('en'));
    expect(en.matches('The strip  club downtown; a nude.')).toEqual(['nude', 'strip club']);
    expect(en.matches('Analysis of nudibranchs')).toEqual([]);
  });

  it('with lang zh, the filter uses the Chinese list (and only what it is given)', async () => {
    const rows = [
      task('zh-bad', '这个网站有很多三级片'),
      task('zh-ok', '这个网站有很多三角形的图片'),
      task('en', 'lorem'),
    ];
    const r = await run(flaggedWordsFilterOp, { words: [], lang: ['zh'] }, rows);
    expect(ids(r.rows)).toEqual(['zh-ok', 'en']);
    expect(reasons(r)).toEqual([['zh-bad', 'flagged words: 1 > maxCount 0 (三级片)']]);
  });
});
