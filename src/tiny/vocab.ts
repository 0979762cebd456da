import { DataError } from '../core/errors.ts';

/**
 * The tiny policy's character vocabulary. Ids are part of the saved-weights format and of every
 * experience the tiny policy writes, so they never change order; new symbols go at the end.
 */
export const TINY_VOCAB = [
  '<pad>',
  '<eos>',
  '0',
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  '7',
  '8',
  '9',
  '+',
  '-',
  '*',
  '=',
  ' ',
] as const;

export const PAD_ID = 0;
export const EOS_ID = 1;
export const VOCAB_SIZE = TINY_VOCAB.length;

const CHAR_TO_ID = new Map<string, number>(
  TINY_VOCAB.map((c, i) => [c, i] as const).filter(([, i]) => i > 1),
);

/** Token ids of `text`, one per character. Throws a DataError naming the first character outside the vocabulary. */
export function encodeText(text: string, where = 'prompt'): number[] {
  const ids: number[] = new Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const id = CHAR_TO_ID.get(text[i]!);
    if (id === undefined) {
      throw new DataError({
        message: `${where}: character ${JSON.stringify(text[i])} at position ${i} is not in the tiny policy's vocabulary (digits, '+', '-', '*', '=', space)`,
      });
    }
    ids[i] = id;
  }
  return ids;
}

/** Text of token ids; stops at the first EOS and skips PAD. */
export function decodeTokens(ids: readonly number[]): string {
  let out = '';
  for (const id of ids) {
    if (id === EOS_ID) break;
    if (id === PAD_ID) continue;
    const ch = TINY_VOCAB[id];
    if (ch === undefined) throw new RangeError(`decodeTokens: token id ${id} is outside the vocabulary`);
    out += ch;
  }
  return out;
}

/** True when every character of `text` is in the vocabulary. */
export function isEncodable(text: string): boolean {
  for (const ch of text) if (!CHAR_TO_ID.has(ch)) return false;
  return true;
}
