import { z } from 'zod';
import type { Task } from '../../core/task.ts';
import { defineOperator } from '../operator.ts';
import { mapTextBatch, TextFieldSchema } from './text-fields.ts';

/** `\newcommand{\name}{value}` or `\newcommand*{…}{…}` ending its line (no arguments). */
const NEWCOMMAND = /\\newcommand\b\*?\{(\\[a-zA-Z0-9]+?)\}\{(.*?)\}$/gm;
/** `\def\name{value}` ending its line. */
const DEF = /\\def\s*(\\[a-zA-Z0-9]+?)\s*\{(.*?)\}$/gm;

/** The argument-less macros a text defines, in definition order (a later definition wins). */
export function latexMacros(text: string): Map<string, string> {
  const macros = new Map<string, string>();
  for (const re of [NEWCOMMAND, DEF]) for (const m of text.matchAll(re)) macros.set(m[1]!, m[2]!);
  return macros;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Each use of an argument-less macro replaced by its value. A use must be followed by a
 * character that is not a letter or digit (so `\foo` does not expand inside `\foobar`, nor at the
 * very end of the text); the definitions themselves are rewritten too, as in Data-Juicer.
 */
export function expandLatexMacros(text: string): string {
  let out = text;
  for (const [name, value] of latexMacros(text)) {
    const use = new RegExp(`${escapeRe(name)}([^a-zA-Z0-9])`, 'g');
    out = out.replace(use, (_, next: string) => value + next);
  }
  return out;
}

const Params = z.strictObject({ field: TextFieldSchema.default('prompt') });

export const expandLatexMacrosOp = defineOperator<Task, typeof Params>({
  name: 'expand_latex_macros',
  kind: 'map',
  rowWise: true,
  textOnly: true,
  description:
    'Expand the argument-less macros a LaTeX source defines (\\newcommand, \\def) where they are used.',
  params: Params,
  create(p) {
    return {
      name: 'expand_latex_macros',
      kind: 'map',
      process(batch) {
        return mapTextBatch(batch, p.field, expandLatexMacros);
      },
    };
  },
});
