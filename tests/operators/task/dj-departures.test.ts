import { describe, expect, it } from 'vitest';
import { fixMojibake, fixMojibakeOp } from '../../../src/operators/task/fix-mojibake.ts';
import { lineLengthFilterOp, lineLengths } from '../../../src/operators/task/line-length-filter.ts';
import { normalizePunctuation } from '../../../src/operators/task/normalize-punctuation.ts';
import { normalizeWhitespace } from '../../../src/operators/task/normalize-whitespace.ts';
import {
  removeCopyrightDataJuicer,
  removeCopyrightHeader,
  removeCopyrightHeadersOp,
} from '../../../src/operators/task/remove-copyright-headers.ts';
import { removeLongWords } from '../../../src/operators/task/remove-long-words.ts';
import { ids, run, task } from './helpers.ts';

/**
 * The departures from Data-Juicer found against its operator tests, fixed: expected outputs
 * reasoned from the facts those tests state (inputs, parameters, kept rows), in English, Chinese
 * and Japanese.
 */
const prompts = (r: { rows: Array<{ prompt?: string }> }) => r.rows.map((t) => t.prompt);

describe('line lengths as Data-Juicer measures them', () => {
  it('does not count a trailing line break as a line; the average is the text length over the lines', () => {
    // 19 code points, one line: Data-Juicer keeps it at min_len 10, max_len 20.
    expect(lineLengths('emoji表情测试下😊，😸31231\n')).toEqual({ average: 19, maximum: 18 });
    // 8 + 1 + 6 code points over 2 lines; the longest line is 8 without its break.
    expect(lineLengths('これはテストです\n二行目です。')).toEqual({ average: 7.5, maximum: 8 });
    expect(lineLengths('ab\nabcd\n')).toEqual({ average: 4, maximum: 4 });
    // Blank lines inside count; \r\n is one break; a lone break is one empty line.
    expect(lineLengths('a\n\nb')).toEqual({ average: 4 / 3, maximum: 1 });
    expect(lineLengths('ab\r\ncd')).toEqual({ average: 3, maximum: 2 });
    expect(lineLengths('\n')).toEqual({ average: 1, maximum: 0 });
  });

  it("keeps what Data-Juicer's average_line_length_filter(min_len=10, max_len=20) keeps", async () => {
    const rows = [
      task('en-2-lines', "Today is Sund Sund Sunda and it's a happy day!\nYou know"),
      task('en-short', 'a v s e e f g a qkc'),
      task('punct', '，。、„”“«»１」「《》´∶：？！（）；–—．～’…━〈〉【】％►'),
      task('en-long', 'Do you need a cup of coffee?'),
      task('zh-emoji', 'emoji表情测试下😊，😸31231\n'),
      task('ja', '今日はいい天気ですね。\n'),
    ];
    const r = await run(lineLengthFilterOp, { minAverage: 10, maxAverage: 20 }, rows);
    // ja: 11 code points + the break = 12 over one line.
    expect(ids(r.rows)).toEqual(['en-short', 'zh-emoji', 'ja']);
  });
});

describe("Data-Juicer's copyright rule (clean_copyright_mapper, rule: data_juicer)", () => {
  it("gives Data-Juicer's outputs on the six cases of its test", () => {
    expect(
      removeCopyrightDataJuicer(
        '这是一段 /* 多行注释\n注释内容copyright\n*/ 的文本。另外还有一些 // 单行注释。',
      ),
    ).toBe('这是一段  的文本。另外还有一些 // 单行注释。');
    const noWord = '如果多行/*注释中没有\n关键词,那么\n这部分注释也不会\n被清除*/\n会保留下来';
    expect(removeCopyrightDataJuicer(noWord)).toBe(noWord);
    expect(removeCopyrightDataJuicer('//if start with\n//that will be cleaned \n evenly')).toBe(' evenly');
    expect(removeCopyrightDataJuicer('http://www.nasosnsncc.com')).toBe('http://www.nasosnsncc.com');
    expect(removeCopyrightDataJuicer('#if start with\nthat will be cleaned \n#evenly')).toBe(
      'that will be cleaned \n#evenly',
    );
    expect(removeCopyrightDataJuicer('--if start with\n--that will be cleaned \n#evenly')).toBe('');
  });

  it('in Japanese and English too; the notice rule stays the default', async () => {
    expect(removeCopyrightDataJuicer('/* Copyright 2024 株式会社 */\n本文です。')).toBe('\n本文です。');
    expect(removeCopyrightDataJuicer('# 見出し\n\n本文です。')).toBe('本文です。');
    // The default rule keeps a leading comment that is not a copyright notice.
    expect(removeCopyrightHeader('# 見出し\n\n本文です。')).toBe('# 見出し\n\n本文です。');
    const rows = [task('md', '# Title\n\nBody text.'), task('c', 'int x; /* (C) Copyright ACME */ int y;')];
    expect(prompts(await run(removeCopyrightHeadersOp, { rule: 'data_juicer' }, rows))).toEqual([
      'Body text.',
      'int x;  int y;',
    ]);
    expect(prompts(await run(removeCopyrightHeadersOp, {}, rows))).toEqual([
      '# Title\n\nBody text.',
      'int x; /* (C) Copyright ACME */ int y;',
    ]);
  });
});

describe("remove_long_words as Data-Juicer's remove_long_words_mapper (min_len 3, max_len 15)", () => {
  const rlw = (t: string) => removeLongWords(t, 3, 15);
  it("gives Data-Juicer's outputs on its test's cases", () => {
    expect(rlw('This paper proposed novel method LLM pretraining.')).toBe(
      'This paper proposed novel method LLM pretraining.',
    );
    expect(rlw('This paper a novel eqeqweqwewqeqwe121e1 method on LLM pretrain.')).toBe(
      'This paper novel method LLM pretrain.',
    );
    expect(rlw('Sur la plateforme MT4, manières à ces fonctionnalités sont conçu')).toBe(
      'Sur plateforme MT4, manières ces fonctionnalités sont conçu',
    );
    // Trailing digits and emoji are special characters: the stripped word is 9 and 15 long.
    expect(rlw('This paper proposed a novel eqeqweqwewqenhq😊😠 method on LLM.')).toBe(
      'This paper proposed novel eqeqweqwewqenhq😊😠 method LLM.',
    );
    expect(rlw("Sur la plateforme MT4, plusieurs manières d'accéder0123813976125")).toBe(
      "Sur plateforme MT4, plusieurs manières d'accéder0123813976125",
    );
    expect(rlw('The Mona Lisa doesnÃƒÂ¢Ã¢â€šÂ¬Ã¢â€žÂ¢t have eyebrows.')).toBe('The Mona Lisa have eyebrows.');
  });
  it('strips trailing digits in English, Chinese and Japanese text too', () => {
    // `version2024` is 11 long, 7 without its trailing digits: kept at max 7.
    expect(removeLongWords('version2024 was out today', 1, 7)).toBe('version2024 was out today');
    expect(removeLongWords('Xiaomi14 手机 很好', 1, 6)).toBe('Xiaomi14 手机 很好');
    expect(removeLongWords('iPhone15 を買いました', 1, 6)).toBe('iPhone15 を買いました');
    // Letters all the way to the end count in full.
    expect(removeLongWords('Xiaomiphone 手机 很好', 1, 6)).toBe('手机 很好');
  });
});

describe('the punctuation and whitespace tables', () => {
  it('maps ∶ (U+2236 RATIO) to a colon, in en/zh/ja', () => {
    expect(normalizePunctuation('ratio 3∶4')).toBe('ratio 3:4');
    expect(normalizePunctuation('比例为1∶2∶3')).toBe('比例为1:2:3');
    expect(normalizePunctuation('時刻∶12∶30')).toBe('時刻:12:30');
  });
  it('treats U+0084 as whitespace, in en/zh/ja', () => {
    expect(normalizeWhitespace('x \t              　\u200B\u200C\u200D\u2060￼\u0084y')).toBe('x y');
    expect(normalizeWhitespace('hello\u0084world')).toBe('hello world');
    expect(normalizeWhitespace('你好\u0084世界')).toBe('你好 世界');
    expect(normalizeWhitespace('こんにちは\u0084世界\u0084')).toBe('こんにちは 世界');
  });
});

describe('fix_mojibake: every layer, and past an unrecoverable sequence', () => {
  /** UTF-8 bytes read as Windows-1252, as a wrong decoder does. */
  const garble = (s: string) => new TextDecoder('windows-1252').decode(new TextEncoder().encode(s));

  it("gives Data-Juicer's outputs on its test's cases (fix_unicode_mapper straightens quotes)", async () => {
    const rows = [
      task('check', 'âœ” No problems'),
      task('mona', 'The Mona Lisa doesnÃƒÂ¢Ã¢â€šÂ¬Ã¢â€žÂ¢t have eyebrows.'),
      task('fine', 'No problems'),
      task('zh', '阿里巴巴'),
    ];
    expect(prompts(await run(fixMojibakeOp, { uncurlQuotes: true }, rows))).toEqual([
      '✔ No problems',
      "The Mona Lisa doesn't have eyebrows.",
      'No problems',
      '阿里巴巴',
    ]);
  });

  it('undoes two and three layers, in en/zh/ja', () => {
    expect(fixMojibake('The Mona Lisa doesnÃƒÂ¢Ã¢â€šÂ¬Ã¢â€žÂ¢t have eyebrows.')).toBe(
      'The Mona Lisa doesn’t have eyebrows.',
    );
    for (const s of ['It’s “fine”.', '这是中文，没有问题。', '日本語のテキストです。']) {
      expect(fixMojibake(garble(s))).toBe(s);
      expect(fixMojibake(garble(garble(s)))).toBe(s);
    }
    expect(garble('中文')).toBe('ä¸\u00adæ–‡');
  });

  it('turns a sequence that lost its last byte into � and still repairs the rest', () => {
    expect(fixMojibake('Itâ€� s cafÃ© time')).toBe('It� s café time');
    expect(fixMojibake('cafÃ© itâ€�s')).toBe('café it�s');
    expect(fixMojibake(`${garble('中文')}â€�${garble('日本語')}`)).toBe('中文�日本語');
  });

  it('leaves correct text alone, and curly quotes unless asked', () => {
    for (const t of ['café naïve', '中文と日本語', 'Â', 'café Ã', 'It’s “fine”.', ''])
      expect(fixMojibake(t)).toBe(t);
  });
});
