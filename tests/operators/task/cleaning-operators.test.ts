import { describe, expect, it } from 'vitest';
import { fixMojibake, fixMojibakeOp } from '../../../src/operators/task/fix-mojibake.ts';
import { lettersPerTokenFilterOp } from '../../../src/operators/task/letters-per-token-filter.ts';
import { lineLengthFilterOp, lineLengths } from '../../../src/operators/task/line-length-filter.ts';
import { normalizePunctuation } from '../../../src/operators/task/normalize-punctuation.ts';
import { removeCopyrightHeader } from '../../../src/operators/task/remove-copyright-headers.ts';
import { removeIpAddresses } from '../../../src/operators/task/remove-ip-addresses.ts';
import { removeLongWords } from '../../../src/operators/task/remove-long-words.ts';
import { removeRepeatSentences } from '../../../src/operators/task/remove-repeat-sentences.ts';
import { removeUrlsEmails } from '../../../src/operators/task/remove-urls-emails.ts';
import { replaceContentOp } from '../../../src/operators/task/replace-content.ts';
import { sentenceSplitOp } from '../../../src/operators/task/sentence-split.ts';
import { stopwordsFilterOp } from '../../../src/operators/task/stopwords-filter.ts';
import { reasons, run, task } from './helpers.ts';

const prompts = (r: { rows: Array<{ prompt?: string }> }) => r.rows.map((t) => t.prompt);

describe('fix_mojibake', () => {
  it('repairs UTF-8 read as Windows-1252 or Latin-1, in en/zh/ja', () => {
    expect(fixMojibake('itâ€™s done âœ”')).toBe('it’s done ✔');
    expect(fixMojibake('cafÃ© crÃ¨me')).toBe('café crème');
    // 中文 → E4 B8 AD E6 96 87 read as cp1252
    expect(fixMojibake('ä¸­æ–‡')).toBe('中文');
    // 日本 → E6 97 A5 E6 9C AC; 0x97 is — in cp1252, 0x9C is œ
    expect(fixMojibake('æ—¥æœ¬èªž')).toBe('日本語');
    // Latin-1 reading leaves C1 controls for 0x80–0x9F
    expect(fixMojibake('caf\u00c3\u00a9 \u00e2\u0080\u0099')).toBe('café ’');
  });
  it('leaves correct and ambiguous text alone', () => {
    for (const t of ['café naïve', '中文と日本語', 'Â', 'café Ã', 'x = 5 × 3 ÷ 2', ''])
      expect(fixMojibake(t)).toBe(t);
    // a repaired run next to real CJK text: only the broken run changes
    expect(fixMojibake('日本 cafÃ©')).toBe('日本 café');
  });
  it('counts changed rows', async () => {
    const r = await run(fixMojibakeOp, {}, [task('a', 'itâ€™s'), task('b', 'fine')]);
    expect(prompts(r)).toEqual(['it’s', 'fine']);
    expect(r.metrics).toEqual({ changed: 1 });
  });
});

describe('normalize_punctuation', () => {
  it('maps CJK punctuation, brackets, box-drawing and arrows', () => {
    expect(normalizePunctuation('你好，世界。「引用」《书名》【注】、')).toBe('你好,世界."引用""书名"[注],');
    expect(normalizePunctuation('日本語：はい！？（注）…')).toBe('日本語:はい!?(注)...');
    expect(normalizePunctuation('━━ ► “quoted” — it’s')).toBe('-- > "quoted" - it\'s');
  });
  it('´ becomes an apostrophe, never a space plus a combining accent', () => {
    expect(normalizePunctuation('don´t')).toBe("don't");
    expect(normalizePunctuation('plain ascii, `code`')).toBe('plain ascii, `code`');
  });
});

describe('remove_ip_addresses', () => {
  it('removes IPv4 and IPv6, not versions or times', () => {
    expect(removeIpAddresses('ping 192.168.0.1 now', '')).toBe('ping  now');
    expect(removeIpAddresses('服务器地址是10.0.0.255。', '<ip>')).toBe('服务器地址是<ip>。');
    expect(removeIpAddresses('サーバー 2001:db8::1 に接続', '<ip>')).toBe('サーバー <ip> に接続');
    expect(removeIpAddresses('fe80:0:0:0:202:b3ff:fe1e:8329', 'X')).toBe('X');
    expect(removeIpAddresses('v1.2.3.4.5 at 10:30, 999.1.1.1', 'X')).toBe('v1.2.3.4.5 at 10:30, 999.1.1.1');
  });
});

describe('remove_copyright_headers', () => {
  it('removes a leading comment that is a copyright notice', () => {
    expect(removeCopyrightHeader('/* Copyright 2020 ACME */\nint x;')).toBe('int x;');
    expect(removeCopyrightHeader('# (c) 2021 Foo\n# All rights reserved\n\nimport os')).toBe('import os');
    expect(removeCopyrightHeader('// 版权所有 © 2022 某公司\nconst a = 1;')).toBe('const a = 1;');
    expect(removeCopyrightHeader('#!/bin/sh\n# 著作権 2023 株式会社\necho hi')).toBe('#!/bin/sh\necho hi');
  });
  it('keeps other comments and text', () => {
    for (const t of ['/* helper */\nint x;', '# a note\nx = 1', 'Copyright law is hard.', '文本 copyright'])
      expect(removeCopyrightHeader(t)).toBe(t);
  });
});

describe('replace_content', () => {
  it('applies patterns in order with one or per-pattern replacements', async () => {
    const r = await run(replaceContentOp, { patterns: ['\\d+', '电话|電話'], replacement: ['<n>', 'TEL'] }, [
      task('en', 'call 555 1234'),
      task('zh', '电话：12345'),
      task('ja', '電話番号は0312345678'),
    ]);
    expect(prompts(r)).toEqual(['call <n> <n>', 'TEL：<n>', 'TEL番号は<n>']);
  });
  it('rejects an invalid pattern and a mismatched list at config time', () => {
    expect(replaceContentOp.params.safeParse({ patterns: ['(a'] }).success).toBe(false);
    expect(replaceContentOp.params.safeParse({ patterns: ['a', 'b'], replacement: ['x'] }).success).toBe(
      false,
    );
  });
});

describe('remove_long_words', () => {
  it('removes words outside [minLen, maxLen], en/zh/ja', () => {
    expect(removeLongWords('a supercalifragilistic word here', 1, 10)).toBe('a word here');
    expect(removeLongWords('visit aaaaaaaaaaaaaaaa.', 1, 10)).toBe('visit');
    // 我 喜欢 吃 苹果 → drop words of 1 character
    expect(removeLongWords('我喜欢吃苹果', 2, 10)).toBe('喜欢苹果');
    expect(removeLongWords('私は学生です', 2, 10)).toBe('学生です');
  });
});

describe('remove_repeat_sentences', () => {
  const opts = { lowercase: false, ignoreSpecialCharacters: true, minRepeatSentenceLength: 2 };
  it('keeps the first occurrence of each sentence', () => {
    expect(removeRepeatSentences('Hi there. How are you? Hi there! Bye.', opts)).toBe(
      'Hi there. How are you? Bye.',
    );
    expect(removeRepeatSentences('今天很好。我们走吧。今天很好！', opts)).toBe('今天很好。我们走吧。');
    expect(removeRepeatSentences('ありがとう。ありがとう。またね。', opts)).toBe('ありがとう。またね。');
  });
  it('lines stay lines; a line of only repeats goes; short sentences stay', () => {
    expect(removeRepeatSentences('Same line.\nSame line.\n\nOther.', opts)).toBe('Same line.\n\nOther.');
    expect(removeRepeatSentences('A. A. A.', opts)).toBe('A. A. A.');
    // ICU does not end a sentence at '. ' before a lower-case letter, hence '!'.
    expect(removeRepeatSentences('Hi there! hi there!', { ...opts, lowercase: true })).toBe('Hi there!');
    expect(removeRepeatSentences('Hi there! hi there!', opts)).toBe('Hi there! hi there!');
  });
});

describe('sentence_split', () => {
  it('puts one sentence per line', async () => {
    const r = await run(sentenceSplitOp, {}, [
      task('en', 'One. Two? Three!'),
      task('zh', '第一句。第二句？'),
      task('ja', '一文目です。二文目です。'),
    ]);
    expect(prompts(r)).toEqual(['One.\nTwo?\nThree!', '第一句。\n第二句？', '一文目です。\n二文目です。']);
  });
});

describe('stopwords_filter', () => {
  it('drops text with too few function words, en/zh/ja', async () => {
    const rows = [
      task('en-prose', 'The cat is on the mat and it is happy'),
      task('en-list', 'apple banana cherry grape melon'),
      task('zh-prose', '我们的老师是一个很好的人'),
      task('zh-list', '苹果香蕉樱桃葡萄'),
      task('ja-prose', '私は学校に行きます'),
      task('ja-list', '東京大阪京都名古屋'),
    ];
    const r = await run(stopwordsFilterOp, { minRatio: 0.3 }, rows);
    expect(reasons(r)).toEqual([
      ['en-list', 'stopword ratio 0.000 < minRatio 0.3'],
      ['zh-list', 'stopword ratio 0.000 < minRatio 0.3'],
      ['ja-list', 'stopword ratio 0.000 < minRatio 0.3'],
    ]);
  });
});

describe('line_length_filter', () => {
  it('measures average (text length over lines, as Data-Juicer) and maximum line length in characters', () => {
    expect(lineLengths('ab\nabcd')).toEqual({ average: 3.5, maximum: 4 });
    expect(lineLengths('你好\n日本語です')).toEqual({ average: 4, maximum: 5 });
  });
  it('drops by each limit, naming value and threshold', async () => {
    const rows = [
      task('short', 'a\nb\nc'),
      task('zh-long', '这是一个非常非常长的中文句子没有任何换行'),
      task('ja', 'これ\n短い'),
      task('ok', 'hello world\nline two'),
    ];
    const r = await run(lineLengthFilterOp, { minAverage: 3, maxMaximum: 15 }, rows);
    expect(reasons(r)).toEqual([
      ['short', 'average line length 1.67 < minAverage 3'],
      ['zh-long', 'maximum line length 20 > maxMaximum 15'],
      ['ja', 'average line length 2.50 < minAverage 3'],
    ]);
  });
});

describe('letters_per_token_filter (words as tokens without a tokenizer)', () => {
  it('drops symbol soup and keeps prose, en/zh/ja', async () => {
    const rows = [
      task('en', 'The cat sat on the mat'), // 17 letters / 6 words
      task('en-soup', '| - | + | = |'), // 0 letters / 0 words (all punctuation)
      task('zh', '我喜欢吃苹果'), // 6 / 4
      task('ja', 'は が の を'), // 4 / 4
    ];
    const r = await run(lettersPerTokenFilterOp, { minRatio: 1.2, maxRatio: 3 }, rows);
    expect(reasons(r)).toEqual([
      ['en-soup', 'letters per word 0.000 < minRatio 1.2'],
      ['ja', 'letters per word 1.000 < minRatio 1.2'],
    ]);
    const strict = await run(lettersPerTokenFilterOp, { minRatio: 0, maxRatio: 2.5 }, rows);
    expect(reasons(strict)).toEqual([['en', 'letters per word 2.833 > maxRatio 2.5']]);
  });
});

describe('remove_urls_emails in CJK text', () => {
  const opts = { urls: true, emails: true, replacement: '' };
  it('removes a scheme written with CJK letters whole, and ends a URL at CJK punctuation', () => {
    expect(removeUrlsEmails('http测试://www.baidu.com/ 测试', opts).text).toBe('测试');
    expect(removeUrlsEmails('访问https://example.com/路径。然后', opts).text).toBe('访问。然后');
    expect(
      removeUrlsEmails('詳細はhttps://example.jp/a（参照）', { ...opts, replacement: '<{kind}>' }).text,
    ).toBe('詳細は<url>（参照）');
    expect(removeUrlsEmails('see s3://bucket/key, then', opts).text).toBe('see, then');
  });
});
