import { describe, expect, it } from 'vitest';
import { Rng } from '../../../src/core/rng.ts';
import { MinHasher } from '../../../src/operators/task/minhash.ts';
import { createSimdSigner } from '../../../src/operators/task/minhash-simd.ts';

const rng = new Rng('minhash-simd');
const letters = 'abcdefghij klmnopqrstuvwxyz,.  ÄéЖ中';
function text(len: number): string {
  let s = '';
  for (let i = 0; i < len; i++) s += letters[rng.int(letters.length)];
  return s;
}

describe('MinHash SIMD loop', () => {
  it('gives exactly the JavaScript loop’s signatures (short, long and huge texts, char and word shingles)', () => {
    for (const tokenizer of ['char', 'word'] as const)
      for (const permutations of [16, 64, 128]) {
        const h = new MinHasher({
          tokenizer,
          ngram: tokenizer === 'char' ? 5 : 3,
          permutations,
          seed: 3,
          lowercase: true,
        });
        const js = new Uint32Array(permutations);
        const simd = new Uint32Array(permutations + 5);
        // 200,000 characters: more shingles than the module's first memory page holds.
        for (const len of [0, 1, 4, 5, 17, 300, 3000, 200_000]) {
          const shingles = h.shingleHashes(text(len)).slice();
          h.signatureOfShinglesJs(shingles, js, 0);
          h.signatureOfShingles(shingles, simd, 5);
          expect(Array.from(simd.subarray(5))).toEqual(Array.from(js));
        }
      }
  });

  it('is used only when the permutations are a multiple of 16', () => {
    const a = new Uint32Array(20).fill(1);
    expect(createSimdSigner(a, a)).toBeNull();
    expect(createSimdSigner(new Uint32Array(32).fill(3), new Uint32Array(32))).not.toBeNull();
    // 20 permutations: the JavaScript loop, same as before.
    const h = new MinHasher({ tokenizer: 'char', ngram: 5, permutations: 20, seed: 1, lowercase: true });
    const x = new Uint32Array(20);
    const y = new Uint32Array(20);
    const sh = h.shingleHashes('the same text twice').slice();
    h.signatureOfShingles(sh, x);
    h.signatureOfShinglesJs(sh, y);
    expect(Array.from(x)).toEqual(Array.from(y));
  });
});
