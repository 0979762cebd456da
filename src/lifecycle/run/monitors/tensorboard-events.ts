/**
 * TensorBoard event files, written by hand: the format is small and stable, and the npm packages
 * that write it pull in a protobuf runtime (or TensorFlow) for three message types.
 *
 * A file is a sequence of TFRecords — uint64 length, masked CRC-32C of the length bytes, the data,
 * masked CRC-32C of the data (all little-endian) — each holding one `Event` protobuf:
 *   Event   { double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5; }
 *   Summary { repeated Value value = 1; }
 *   Value   { string tag = 1; float simple_value = 2; }
 * The first event names the format (`brain.Event:2`); TensorBoard reads any file whose name holds
 * `tfevents`.
 */

/** CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven. */
const CRC32C_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32c(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC32C_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** TFRecord's masking of a CRC (so a CRC of data holding CRCs stays well distributed). */
export function maskedCrc32c(bytes: Uint8Array): number {
  const c = crc32c(bytes);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** One TFRecord around `data`. */
export function tfRecord(data: Uint8Array): Buffer {
  const out = Buffer.alloc(8 + 4 + data.length + 4);
  out.writeBigUInt64LE(BigInt(data.length), 0);
  out.writeUInt32LE(maskedCrc32c(out.subarray(0, 8)), 8);
  out.set(data, 12);
  out.writeUInt32LE(maskedCrc32c(data), 12 + data.length);
  return out;
}

/** A protobuf base-128 varint (non-negative integers up to 2^53). */
function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const lengthDelimited = (field: number, body: Uint8Array) =>
  Buffer.concat([Buffer.from([(field << 3) | 2, ...varint(body.length)]), body]);

function double(field: number, v: number): Buffer {
  const b = Buffer.alloc(9);
  b[0] = (field << 3) | 1;
  b.writeDoubleLE(v, 1);
  return b;
}

function float(field: number, v: number): Buffer {
  const b = Buffer.alloc(5);
  b[0] = (field << 3) | 5;
  b.writeFloatLE(v, 1);
  return b;
}

/** The event that opens every file. */
export function fileVersionEvent(wallTime: number): Buffer {
  return Buffer.concat([double(1, wallTime), lengthDelimited(3, utf8('brain.Event:2'))]);
}

/** An event holding scalar summaries (`simple_value`, a 32-bit float as TensorBoard stores it). */
export function scalarsEvent(
  wallTime: number,
  step: number,
  scalars: ReadonlyArray<[string, number]>,
): Buffer {
  if (!Number.isInteger(step) || step < 0)
    throw new RangeError(`step must be a non-negative integer, got ${step}`);
  const values = scalars.map(([tag, v]) =>
    lengthDelimited(1, Buffer.concat([lengthDelimited(1, utf8(tag)), float(2, v)])),
  );
  return Buffer.concat([
    double(1, wallTime),
    Buffer.from([(2 << 3) | 0, ...varint(step)]),
    lengthDelimited(5, Buffer.concat(values)),
  ]);
}
