import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taskContentId } from '../../../src/core/ids.ts';
import { ExactDedupIndex } from '../../../src/operators/task/exact-dedup-index.ts';
import { FrontCodedStrings } from '../../../src/operators/task/front-coded-strings.ts';
import { GrowableBuffer } from '../../../src/operators/task/growable-buffer.ts';
import { type SlotKeys, TaggedSlotTable } from '../../../src/operators/task/tagged-slot-table.ts';

/** Ids as files have them: near-sequential with a shared prefix, and anything at all. */
const idArb = fc.oneof(
  fc.nat({ max: 300 }).map((n) => `s${n}`),
  fc.nat({ max: 40 }).map((n) => `task-${String(n).padStart(6, '0')}`),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ maxLength: 3 }),
);

describe('FrontCodedStrings', () => {
  it('gives back every string exactly, in order, and tells equal from unequal (property)', () => {
    fc.assert(
      fc.property(
        fc.array(idArb, { maxLength: 200 }),
        fc.array(idArb, { maxLength: 20 }),
        (strings, others) => {
          const list = new FrontCodedStrings();
          strings.forEach((s, i) => {
            expect(list.push(s)).toBe(i);
          });
          expect(list.size).toBe(strings.length);
          strings.forEach((s, i) => {
            expect(list.at(i)).toBe(s);
            expect(list.equals(i, s)).toBe(true);
            for (const o of others) expect(list.equals(i, o)).toBe(o === s);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps long strings, lone surrogates and 120k strings intact, in order and at random', () => {
    const list = new FrontCodedStrings();
    const long = `${'é'.repeat(70_000)}\ud800x`;
    const strings = ['', long, `${long}y`, 'a', '😀', '\udfff'];
    for (let i = 0; i < 120_000; i++) strings.push(`row-${i}-${'z'.repeat(i % 9)}`);
    strings.forEach((s, i) => {
      expect(list.push(s)).toBe(i);
    });
    for (const i of [0, 1, 2, 3, 4, 5, 6, 17, 60_001, 119_999, strings.length - 1])
      expect(list.at(i)).toBe(strings[i]);
    expect(list.equals(2, `${long}z`)).toBe(false);
    let wrong = 0;
    let seen = 0;
    list.forEach(strings.length, (units, n, slot) => {
      const s = strings[slot]!;
      if (n !== s.length || (n > 0 && (units[n - 1] !== s.charCodeAt(n - 1) || units[0] !== s.charCodeAt(0))))
        wrong++;
      seen++;
    });
    expect([seen, wrong]).toEqual([strings.length, 0]);
  });
});

/** Slot keys over a plain array, with a hash that collides often (few distinct values). */
class ArrayKeys implements SlotKeys {
  readonly keys: string[] = [];
  query = '';
  readonly hash: (s: string) => number;
  constructor(hash: (s: string) => number) {
    this.hash = hash;
  }
  matches(slot: number): boolean {
    return this.keys[slot] === this.query;
  }
  eachHash(count: number, take: (hash: number, slot: number) => void): void {
    for (let slot = 0; slot < count; slot++) take(this.hash(this.keys[slot]!), slot);
  }
}

function weakHash(s: string): number {
  let h = 7;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  // Few distinct hashes (many keys per hash), high bits spread so positions still vary.
  return Math.imul((h >>> 0) % 97, 0x9e3779b1) >>> 0;
}

describe('TaggedSlotTable', () => {
  it('finds what a Map finds, across shard growth and slot widening (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.nat({ max: 3000 }).map(String), fc.string({ maxLength: 4 })), {
          maxLength: 600,
        }),
        fc.boolean(),
        (ops, weak) => {
          const keys = new ArrayKeys(weak ? weakHash : (s) => fnv(s));
          // 3 slot bits of 12-bit cells: widened several times within a few hundred keys, the tag
          // narrowed from 8 bits to 2 on the way.
          const table = new TaggedSlotTable(keys, { slot: 3, cell: 12 });
          const ref = new Map<string, number>();
          for (const k of ops) {
            keys.query = k;
            const found = table.find(keys.hash(k));
            expect(found).toBe(ref.get(k) ?? -1);
            if (found < 0) {
              const slot = keys.keys.push(k) - 1;
              table.insert(keys.hash(k), slot);
              ref.set(k, slot);
            }
          }
          expect(table.size).toBe(ref.size);
          for (const [k, slot] of ref) {
            keys.query = k;
            expect(table.find(keys.hash(k))).toBe(slot);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('TaggedSlotTable.reserve', () => {
  /** Counts how often the table read every key again (a rebuild). */
  class CountingKeys extends ArrayKeys {
    rebuilds = 0;
    override eachHash(count: number, take: (hash: number, slot: number) => void): void {
      this.rebuilds++;
      super.eachHash(count, take);
    }
  }

  it('makes room once: no rebuild while the reserved keys arrive, every key still found, any key order', () => {
    fc.assert(
      fc.property(fc.nat({ max: 40 }), fc.integer({ min: 1, max: 3000 }), (before, reserved) => {
        const keys = new CountingKeys(fnv);
        const table = new TaggedSlotTable(keys);
        const add = (k: string) => {
          const slot = keys.keys.push(k) - 1;
          table.insert(fnv(k), slot);
        };
        for (let i = 0; i < before; i++) add(`a${i}`);
        table.reserve(reserved);
        const atReserve = keys.rebuilds;
        for (let i = before; i < Math.max(before, reserved); i++) add(`a${i}`);
        expect(keys.rebuilds).toBe(atReserve);
        for (let s = 0; s < keys.keys.length; s++) {
          keys.query = keys.keys[s]!;
          expect(table.find(fnv(keys.query))).toBe(s);
        }
        keys.query = 'absent';
        expect(table.find(fnv('absent'))).toBe(-1);
      }),
      { numRuns: 60 },
    );
  });

  it('reserves at most ~4.2M keys whatever it is told (an estimate far too high wastes ~20 MB, not gigabytes)', () => {
    const table = new TaggedSlotTable(new ArrayKeys(fnv));
    // Cells come in 8-byte steps (two at a time).
    const near = (cells: number) => [Math.ceil(cells / 0.85) + 1, Math.ceil(cells / 0.85) + 2];
    table.reserve(10_000);
    expect(near(10_000)).toContain(table.capacity);
    table.reserve(1e9);
    expect(near(2 ** 22)).toContain(table.capacity);
    table.reserve(100);
    expect(near(2 ** 22)).toContain(table.capacity);
  });

  it('rebuilds far less often for 200k keys when told of them first', () => {
    const grown = new CountingKeys(fnv);
    const sized = new CountingKeys(fnv);
    const a = new TaggedSlotTable(grown);
    const b = new TaggedSlotTable(sized);
    b.reserve(200_000);
    for (let i = 0; i < 200_000; i++) {
      const k = `t${i}`;
      a.insert(fnv(k), grown.keys.push(k) - 1);
      b.insert(fnv(k), sized.keys.push(k) - 1);
    }
    expect([grown.rebuilds, sized.rebuilds]).toEqual([14, 1]);
  });
});

describe('TaggedSlotTable, step by step', () => {
  it('finds every key after each insert, through each widening and rebuild', () => {
    for (const hash of [weakHash, fnv]) {
      const keys = new ArrayKeys(hash);
      const table = new TaggedSlotTable(keys, { slot: 3, cell: 12 });
      for (let n = 0; n < 2000; n++) {
        const k = `k${n * 7}`;
        const slot = keys.keys.push(k) - 1;
        table.insert(hash(k), slot);
        let lost = 0;
        for (let s = 0; s <= slot; s++) {
          keys.query = keys.keys[s]!;
          if (table.find(hash(keys.query)) !== s) lost++;
        }
        expect([n, lost]).toEqual([n, 0]);
      }
      keys.query = 'k1';
      expect(table.find(hash('k1'))).toBe(-1);
      expect(() => table.insert(hash('k1'), 2047)).toThrow(/more than 2046 keys/);
    }
  });
});

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) >>> 0;
}

describe('ExactDedupIndex', () => {
  /** Rows: an id and a text key hash pair drawn from small ranges (same key with another check too). */
  const rowArb = {
    id: idArb,
    key: fc.oneof(fc.nat({ max: 50 }), fc.constantFrom(2 ** 40 + 7, 2 ** 41 + 7, 2 ** 53 - 1)),
    check: fc.nat({ max: 2 }),
  };

  /** The same with content-hash ids (`taskContentId`, kept as words: id-strings.ts) from a small pool. */
  const contentRowArb = fc.record({
    id: fc.nat({ max: 60 }).map((n) => taskContentId({ prompt: `p${n}` })),
    key: rowArb.key,
    check: rowArb.check,
  });

  it('keeps and drops exactly what a Map-based reference does, naming the same first id (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fc.record(rowArb), { maxLength: 400 }),
          fc.array(contentRowArb, { maxLength: 400 }),
        ),
        fc.boolean(),
        fc.boolean(),
        (rows, checkIds, narrow) => {
          const index = new ExactDedupIndex(checkIds, narrow ? { slot: 3, cell: 12 } : undefined);
          const byId = new Map<string, number>();
          const byText = new Map<string, number>();
          const keptIds: string[] = [];
          for (const { id, key, check } of rows) {
            const refId = checkIds ? (byId.get(id) ?? -1) : -1;
            expect(index.findId(id)).toBe(refId);
            if (refId >= 0) continue;
            const refText = byText.get(`${key}/${check}`) ?? -1;
            const text = index.findText(key, check);
            expect(text).toBe(refText);
            if (text >= 0) {
              expect(index.idAt(text)).toBe(keptIds[refText]);
              continue;
            }
            const slot = index.add(id, key, check);
            expect(slot).toBe(keptIds.length);
            keptIds.push(id);
            if (!byId.has(id)) byId.set(id, slot);
            byText.set(`${key}/${check}`, slot);
          }
          expect(index.size).toBe(keptIds.length);
          keptIds.forEach((id, slot) => {
            expect(index.idAt(slot)).toBe(id);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('tells apart keys that share their low 32 bits, and checks that differ', () => {
    const index = new ExactDedupIndex(true);
    expect(index.add('a', 2 ** 40 + 7, 1)).toBe(0);
    expect(index.add('b', 2 ** 41 + 7, 1)).toBe(1);
    expect(index.add('c', 7, 1)).toBe(2);
    expect(index.findText(2 ** 40 + 7, 1)).toBe(0);
    expect(index.findText(2 ** 41 + 7, 1)).toBe(1);
    expect(index.findText(7, 1)).toBe(2);
    expect(index.findText(7, 2)).toBe(-1);
    expect(index.findText(2 ** 42 + 7, 1)).toBe(-1);
    expect(index.findId('b')).toBe(1);
    expect(index.findId('d')).toBe(-1);
  });

  it('holds 300k rows: every id and key found at its slot, none of 1,000 others', () => {
    const index = new ExactDedupIndex(true);
    const n = 300_000;
    const key = (i: number) => (Math.imul(i, 0x9e3779b1) >>> 0) * 2097152 + (i & 0x1fffff);
    for (let i = 0; i < n; i++) expect(index.add(`s${i * 3}`, key(i), i ^ 0x5bd1e995)).toBe(i);
    for (let i = 0; i < n; i += 7) {
      expect(index.findId(`s${i * 3}`)).toBe(i);
      expect(index.findText(key(i), (i ^ 0x5bd1e995) >>> 0)).toBe(i);
    }
    for (let i = 0; i < 1000; i++) {
      expect(index.findId(`s${i * 3 + 1}`)).toBe(-1);
      expect(index.findText(key(n + i), 0)).toBe(-1);
    }
    expect(index.idAt(299_999)).toBe('s899997');
  });
});

describe('GrowableBuffer', () => {
  it('grows in place, keeping its bytes, and falls back to copying where no space can be reserved', () => {
    // 2^60 bytes cannot be reserved: the plain-ArrayBuffer path that copies.
    for (const max of [2 ** 24, 2 ** 60]) {
      const g = new GrowableBuffer(16, max);
      new Uint8Array(g.memory, 0, 16).set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
      expect(g.grow(8)).toBe(false);
      const before = g.memory;
      expect(g.grow(1000)).toBe(true);
      // Resized in place (the same buffer) where space was reserved; a new, copied one otherwise.
      expect(g.memory === before).toBe(max === 2 ** 24);
      expect(g.byteLength).toBeGreaterThanOrEqual(1000);
      expect(g.byteLength % 8).toBe(0);
      expect([...new Uint8Array(g.memory, 0, 17)]).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0,
      ]);
    }
    expect(() => new GrowableBuffer(16, 1024).grow(2048)).toThrow(/outgrew its 1024-byte limit/);
  });
});
