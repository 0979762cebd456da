import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/core/errors.ts';
import {
  decodeTokens,
  EOS_ID,
  encodeText,
  isEncodable,
  PAD_ID,
  TINY_VOCAB,
  VOCAB_SIZE,
} from '../../src/tiny/vocab.ts';

describe('tiny vocabulary', () => {
  it('has a fixed order: pad, eos, digits, operators, equals, space', () => {
    expect(TINY_VOCAB).toEqual([
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
    ]);
    expect([PAD_ID, EOS_ID, VOCAB_SIZE]).toEqual([0, 1, 17]);
  });

  it('encodes one id per character', () => {
    expect(encodeText('37+48=')).toEqual([5, 9, 12, 6, 10, 15]);
    expect(encodeText('9*2-1 ')).toEqual([11, 14, 4, 13, 3, 16]);
  });

  it('decodes up to the first EOS, skipping PAD', () => {
    expect(decodeTokens([10, 7, EOS_ID, 3])).toBe('85');
    expect(decodeTokens([PAD_ID, 13, 4])).toBe('-2');
    expect(decodeTokens([])).toBe('');
  });

  it('round-trips every encodable string', () => {
    const text = '0123456789+-*= ';
    expect(decodeTokens(encodeText(text))).toBe(text);
  });

  it('names the first character it cannot encode', () => {
    expect(() => encodeText('12+x=')).toThrow(DataError);
    expect(() => encodeText('12+x=')).toThrow(/character "x" at position 3/);
    expect(isEncodable('12+x=')).toBe(false);
    expect(isEncodable('12+3=')).toBe(true);
  });

  it('rejects ids outside the vocabulary when decoding', () => {
    expect(() => decodeTokens([2, 99])).toThrow(RangeError);
  });
});
