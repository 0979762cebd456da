import { createRequire } from 'node:module';

/**
 * Word lists from maintained npm packages, loaded on first use:
 * - `stopwords-iso` 1.1.0 (MIT): stopwords of 58 languages by ISO 639-1 code, merged from many
 *   published lists (https://github.com/stopwords-iso/stopwords-iso).
 * - `naughty-words` 1.2.0 (CC-BY-4.0, Shutterstock's "List of Dirty, Naughty, Obscene, and Otherwise
 *   Bad Words", the lists Data-Juicer's flagged words also grew from): 28 languages; its Quebec
 *   French list is merged into `fr`, its Klingon list left out.
 * Licences and sizes: datasets/wordlists/README.md.
 */
const load = createRequire(import.meta.url);

/** The languages stopwords-iso covers (checked against the package by a test). */
export const STOPWORD_LANGUAGES = [
  'af',
  'ar',
  'hy',
  'eu',
  'bn',
  'br',
  'bg',
  'ca',
  'zh',
  'hr',
  'cs',
  'da',
  'nl',
  'en',
  'eo',
  'et',
  'fi',
  'fr',
  'gl',
  'de',
  'el',
  'gu',
  'ha',
  'he',
  'hi',
  'hu',
  'id',
  'ga',
  'it',
  'ja',
  'ko',
  'ku',
  'la',
  'lt',
  'lv',
  'ms',
  'mr',
  'no',
  'fa',
  'pl',
  'pt',
  'ro',
  'ru',
  'sk',
  'sl',
  'so',
  'st',
  'es',
  'sw',
  'sv',
  'th',
  'tl',
  'tr',
  'uk',
  'ur',
  'vi',
  'yo',
  'zu',
] as const;
export type StopwordLanguage = (typeof STOPWORD_LANGUAGES)[number];

/** The languages naughty-words covers, as Winnow names them (checked against the package by a test). */
export const FLAGGED_WORD_LANGUAGES = [
  'ar',
  'cs',
  'da',
  'de',
  'en',
  'eo',
  'es',
  'fa',
  'fi',
  'fil',
  'fr',
  'hi',
  'hu',
  'it',
  'ja',
  'kab',
  'ko',
  'nl',
  'no',
  'pl',
  'pt',
  'ru',
  'sv',
  'th',
  'tr',
  'zh',
] as const;
export type FlaggedWordLanguage = (typeof FLAGGED_WORD_LANGUAGES)[number];

let stopwords: Record<string, string[]> | null = null;
let flagged: Record<string, string[]> | null = null;

/** stopwords-iso's list for a language. */
export function isoStopwords(lang: StopwordLanguage): string[] {
  stopwords ??= load('stopwords-iso') as Record<string, string[]>;
  return stopwords[lang] ?? [];
}

/** naughty-words' list for a language (`fr` with the Quebec French list). */
export function flaggedWordList(lang: FlaggedWordLanguage): string[] {
  flagged ??= load('naughty-words') as Record<string, string[]>;
  const list = flagged[lang] ?? [];
  return lang === 'fr' ? [...list, ...(flagged['fr-CA-u-sd-caqc'] ?? [])] : list;
}
