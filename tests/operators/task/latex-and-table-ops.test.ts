import { describe, expect, it } from 'vitest';
import { expandLatexMacros, expandLatexMacrosOp } from '../../../src/operators/task/expand-latex-macros.ts';
import { removeBibliography } from '../../../src/operators/task/remove-bibliography.ts';
import { removeLatexComments } from '../../../src/operators/task/remove-latex-comments.ts';
import { removeLatexHeader, removeLatexHeaderOp } from '../../../src/operators/task/remove-latex-header.ts';
import { removeTableText } from '../../../src/operators/task/remove-table-text.ts';
import {
  removeWordsWithSubstrings,
  removeWordsWithSubstringsOp,
} from '../../../src/operators/task/remove-words-with-substrings.ts';
import { run, task } from './helpers.ts';

/**
 * Golden cases for the operators behind Data-Juicer's RedPajama arXiv, BLOOM and table mappers,
 * in English, Chinese and Japanese. Each expected text follows from the operator's rule (worked
 * out in the comment next to it), which is Data-Juicer's.
 */
describe('remove_latex_header (remove_header_mapper)', () => {
  it('cuts everything before the first sectioning command', () => {
    const en =
      '\\documentclass{article}\n\\title{T}\n\\begin{document}\n\\section{Intro}\nHello.\n\\subsection*{More} x';
    expect(removeLatexHeader(en, true)).toBe('\\section{Intro}\nHello.\n\\subsection*{More} x');
    // an optional [short title] before the title
    expect(removeLatexHeader('前言\n\\chapter[短]{第一章}\n正文', true)).toBe('\\chapter[短]{第一章}\n正文');
    expect(removeLatexHeader('序文\n\\paragraph{段落}本文', true)).toBe('\\paragraph{段落}本文');
  });

  it('empties a text without one when dropNoHeader, else leaves it; \\sectionmark is not \\section', async () => {
    expect(removeLatexHeader('これは本文です。', true)).toBe('');
    expect(removeLatexHeader('これは本文です。', false)).toBe('これは本文です。');
    expect(removeLatexHeader('\\sectionmark{a} text', true)).toBe('');
    const r = await run(removeLatexHeaderOp, {}, [task('a', 'no header here'), task('b', 'x\\part{P}y')]);
    expect(r.rows.map((t) => t.prompt)).toEqual(['', '\\part{P}y']);
    expect(r.metrics.changed).toBe(2);
  });
});

describe('remove_latex_comments (remove_comments_mapper)', () => {
  it('removes inline comments with the character before the %, then comment lines', () => {
    // " % note" goes with its space; the escaped \% stays; the first line is a comment line
    expect(removeLatexComments('% top comment\nText here % note\nKeep 50\\% done\n', true, true)).toBe(
      'Text here\nKeep 50\\% done\n',
    );
    // "\n%注释行" is an inline match (the line break is the character before %), then "行%行内注释"
    expect(removeLatexComments('第一行\n%注释行\n第二行%行内注释', true, true)).toBe('第一行\n第二');
    // the 。 before the % goes too
    expect(removeLatexComments('本文です。% メモ', true, true)).toBe('本文です');
  });

  it('does only what is switched on', () => {
    expect(removeLatexComments('% line\na % b', false, true)).toBe('a % b');
    expect(removeLatexComments('% line\na % b', true, false)).toBe('% line\na');
    expect(removeLatexComments('% line\na % b', false, false)).toBe('% line\na % b');
  });
});

describe('remove_bibliography (remove_bibliography_mapper)', () => {
  it('cuts at the first appendix or bibliography, to the end', () => {
    expect(removeBibliography('Body text.\n\\bibliography{refs}\nmore')).toBe('Body text.\n');
    expect(removeBibliography('正文。\n\\appendix\n附录\n\\bibliography{x}')).toBe('正文。\n');
    expect(removeBibliography('本文\\begin{thebibliography}{9}\\bibitem{a} 文献\\end{thebibliography}')).toBe(
      '本文',
    );
    expect(removeBibliography('A\\begin{REFERENCES}B')).toBe('A');
    expect(removeBibliography('no back matter; \\begin{references without brace')).toBe(
      'no back matter; \\begin{references without brace',
    );
  });
});

describe('expand_latex_macros (expand_macro_mapper)', () => {
  it('expands argument-less \\newcommand and \\def macros where a non-alphanumeric follows', () => {
    // \R} in the definition and \R$ expand; \Rset is another name
    expect(expandLatexMacros('\\newcommand{\\R}{\\mathbb{R}}\nLet $x \\in \\R$ and \\Rset.')).toBe(
      '\\newcommand{\\mathbb{R}}{\\mathbb{R}}\nLet $x \\in \\mathbb{R}$ and \\Rset.',
    );
    expect(expandLatexMacros('\\def\\zh{中文}\n这是\\zh 文本')).toBe('\\def中文{中文}\n这是中文 文本');
    // の is not an ASCII letter or digit, so \jp before it expands
    expect(expandLatexMacros('\\newcommand*{\\jp}{日本語}\n\\jpのテキスト')).toBe(
      '\\newcommand*{日本語}{日本語}\n日本語のテキスト',
    );
  });

  it('leaves a use at the very end, and a text without definitions, as they are', async () => {
    expect(expandLatexMacros('\\def\\a{b}\nend \\a')).toBe('\\defb{b}\nend \\a');
    const r = await run(expandLatexMacrosOp, {}, [task('x', 'plain \\emph{text}')]);
    expect(r.rows[0]!.prompt).toBe('plain \\emph{text}');
    expect(r.metrics.changed).toBe(0);
  });
});

describe('remove_table_text (remove_table_text_mapper)', () => {
  it('removes two or more table-like rows after a line break', () => {
    expect(removeTableText('This is a table:\n编号 分行\n① 北京分行\nThe end of the table.', 2, 20)).toBe(
      'This is a table:\nThe end of the table.',
    );
    expect(removeTableText('Intro:\nName Age\nBob 30\nAnn 25\nDone.', 2, 20)).toBe('Intro:\nDone.');
    expect(removeTableText('表:\n名前|年齢|職業\n太郎|30|医者\n終わり', 2, 20)).toBe('表:\n終わり');
  });

  it('keeps one-column lists, single rows and rows of different widths', () => {
    expect(removeTableText('表:\n名前\n太郎\n終わり', 2, 20)).toBe('表:\n名前\n太郎\n終わり');
    expect(removeTableText('T:\na b c\nd e\nEnd', 2, 20)).toBe('T:\na b c\nd e\nEnd');
    // 3 columns are outside 2..2
    expect(removeTableText('T:\na b c\nd e f\nEnd', 2, 2)).toBe('T:\na b c\nd e f\nEnd');
  });
});

describe('remove_words_with_substrings (remove_words_with_incorrect_substrings_mapper)', () => {
  it('drops words holding http, www, .com, href or //, and rebuilds the text with single separators', () => {
    expect(
      removeWordsWithSubstrings('Visit http://x.com or www.example.org today,  friends', [
        'http',
        'www',
        '.com',
      ]),
    ).toBe('Visit or today, friends');
    expect(removeWordsWithSubstrings('请访问 https://例子.com 了解更多', ['http'])).toBe('请访问 了解更多');
    expect(removeWordsWithSubstrings('詳細は\thref=リンク を参照\n\n次の行', ['href'])).toBe(
      '詳細は\tを参照\n次の行',
    );
  });

  it('judges a word stripped of special characters, so a bare // stays', async () => {
    const r = await run(removeWordsWithSubstringsOp, {}, [task('a', 'a // b'), task('b', 'see (www.x.org)')]);
    expect(r.rows.map((t) => t.prompt)).toEqual(['a // b', 'see']);
  });
});
