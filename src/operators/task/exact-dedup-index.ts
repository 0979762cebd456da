import { hashString } from './exact-dedup-keys.ts';
import { GrowableBuffer } from './growable-buffer.ts';
import { IdStrings } from './id-strings.ts';
import { type SlotKeys, TaggedSlotTable } from './tagged-slot-table.ts';

/**
 * exact_dedup's memory: one slot per kept row, holding its text's key hash (53-bit key + 32-bit
 * check, see dedup-key.ts) and its id, looked up by either through a table of slot numbers.
 *
 * A row's text key and its id share one slot number, so the first id a duplicate text names is the
 * slot itself (no per-key value), ids are stored once (IdStrings: 8 bytes for a content-hash id,
 * else front-coded), and the two tables hold 4-byte slot numbers with a hash tag (TaggedSlotTable):
 * ~30 bytes a kept row at 10M rows (12 key, 8 id, ~10 tables), where a key table with inline keys
 * plus a separate id set took ~45. Ids are compared
 * exactly, code unit by code unit; texts by their 85-bit hash, as before.
 */
export class ExactDedupIndex {
  private readonly texts = new TextKeys();
  private readonly ids = new IdKeys();
  private readonly byText: TaggedSlotTable;
  private readonly byId: TaggedSlotTable | undefined;

  /** `indexIds: false` keeps ids only to name them in messages (no lookup by id). */
  constructor(indexIds: boolean, bits?: { slot: number; cell: number }) {
    this.byText = new TaggedSlotTable(this.texts, bits);
    this.byId = indexIds ? new TaggedSlotTable(this.ids, bits) : undefined;
  }

  get size(): number {
    return this.ids.strings.size;
  }

  /** Room for `rows` kept rows without rebuilding the lookup tables (a hint: more still fit). */
  reserve(rows: number): void {
    this.byText.reserve(rows);
    this.byId?.reserve(rows);
  }

  /** The slot of a kept row with this id, or −1 (always −1 without `indexIds`). */
  findId(id: string): number {
    if (this.byId === undefined) return -1;
    const h = hashString(id);
    this.ids.query = id;
    this.ids.queryHash = h;
    return this.byId.find(h);
  }

  /** The slot of a kept row whose text has this key and check, or −1. */
  findText(key: number, check: number): number {
    this.texts.queryLo = key >>> 0;
    this.texts.queryHi = Math.floor(key / 4294967296);
    this.texts.queryCheck = check >>> 0;
    return this.byText.find(key >>> 0);
  }

  /** Keep a row (its id and text not kept before): its slot. */
  add(id: string, key: number, check: number): number {
    const slot = this.ids.strings.push(id);
    this.texts.push(key, check);
    this.byText.insert(key >>> 0, slot);
    // The id `findId` just looked up (exact_dedup's order) is not hashed again.
    this.byId?.insert(this.ids.query === id ? this.ids.queryHash : hashString(id), slot);
    return slot;
  }

  /** The id kept at `slot` (built on demand: only for messages). */
  idAt(slot: number): string {
    return this.ids.strings.at(slot);
  }
}

/** The same hash over code units `units[0..n)`. */
function hashUnits(units: Uint16Array, n: number): number {
  let h = 0x811c9dc5 ^ n;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ units[i]!, 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

class IdKeys implements SlotKeys {
  readonly strings = new IdStrings();
  query = '';
  queryHash = 0;

  matches(slot: number): boolean {
    return this.strings.equals(slot, this.query);
  }

  eachHash(count: number, take: (hash: number, slot: number) => void): void {
    this.strings.forEach(count, (units, n, slot) => take(hashUnits(units, n), slot));
  }
}

/** Per slot: the key's low 32 bits, its high 21 bits, the check; three words side by side. */
class TextKeys implements SlotKeys {
  private readonly memory = new GrowableBuffer(12 << 10, 12 * 2 ** 30);
  private words = new Uint32Array(this.memory.memory, 0, this.memory.byteLength / 4);
  private count = 0;
  queryLo = 0;
  queryHi = 0;
  queryCheck = 0;

  push(key: number, check: number): void {
    const at = this.count++ * 3;
    if (at + 3 > this.words.length) {
      this.memory.grow((at + 3) * 4);
      this.words = new Uint32Array(this.memory.memory, 0, this.memory.byteLength / 4);
    }
    this.words[at] = key >>> 0;
    this.words[at + 1] = Math.floor(key / 4294967296);
    this.words[at + 2] = check >>> 0;
  }

  matches(slot: number): boolean {
    const at = slot * 3;
    const w = this.words;
    return w[at] === this.queryLo && w[at + 1] === this.queryHi && w[at + 2] === this.queryCheck;
  }

  eachHash(count: number, take: (hash: number, slot: number) => void): void {
    const w = this.words;
    for (let slot = 0; slot < count; slot++) take(w[slot * 3]!, slot);
  }
}
