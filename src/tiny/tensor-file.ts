import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-file.ts';
import { DataError } from '../core/errors.ts';

/**
 * Named float32 tensors in one little-endian binary file, described by a JSON manifest entry
 * list. Shared by saved policies and trainer checkpoints.
 */
export const TensorEntrySchema = z.object({
  name: z.string().min(1),
  shape: z.array(z.number().int().nonnegative()),
  /** Byte offset into the binary file. */
  offset: z.number().int().nonnegative(),
});
export type TensorEntry = z.infer<typeof TensorEntrySchema>;

export interface NamedTensor {
  name: string;
  shape: readonly number[];
  values: Float32Array;
}

/** Write tensors to `dir/file`; returns the manifest entries and the file's sha256. */
export async function writeTensorFile(
  dir: string,
  file: string,
  tensors: readonly NamedTensor[],
): Promise<{ entries: TensorEntry[]; sha256: string; bytes: number }> {
  await mkdir(dir, { recursive: true });
  const total = tensors.reduce((a, t) => a + t.values.length, 0);
  const buf = new Uint8Array(total * 4);
  const view = new DataView(buf.buffer);
  const entries: TensorEntry[] = [];
  let offset = 0;
  for (const t of tensors) {
    const size = t.shape.reduce((a, b) => a * b, 1);
    if (size !== t.values.length) {
      throw new RangeError(
        `writeTensorFile: ${t.name} has ${t.values.length} values but shape [${t.shape.join(', ')}]`,
      );
    }
    entries.push({ name: t.name, shape: [...t.shape], offset });
    for (let i = 0; i < t.values.length; i++) view.setFloat32(offset + i * 4, t.values[i]!, true);
    offset += t.values.length * 4;
  }
  await writeFileAtomic(join(dir, file), buf);
  return { entries, sha256: createHash('sha256').update(buf).digest('hex'), bytes: buf.length };
}

/** Read tensors back, checking the file's sha256 (when given) and that every entry lies inside the file. */
export async function readTensorFile(
  dir: string,
  file: string,
  entries: readonly TensorEntry[],
  sha256?: string,
): Promise<NamedTensor[]> {
  const path = join(dir, file);
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    throw new DataError({ file: path, message: `cannot read the weights file (${(err as Error).message})` });
  }
  if (sha256 !== undefined) {
    const got = createHash('sha256').update(buf).digest('hex');
    if (got !== sha256) {
      throw new DataError({ file: path, message: `sha256 ${got} does not match the manifest's ${sha256}` });
    }
  }
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return entries.map((e) => {
    const size = e.shape.reduce((a, b) => a * b, 1);
    if (e.offset + size * 4 > buf.byteLength) {
      throw new DataError({
        file: path,
        message: `tensor ${e.name} (offset ${e.offset}, ${size} floats) runs past the end of the file (${buf.byteLength} bytes)`,
      });
    }
    const values = new Float32Array(size);
    for (let i = 0; i < size; i++) values[i] = view.getFloat32(e.offset + i * 4, true);
    return { name: e.name, shape: e.shape, values };
  });
}

/** Read and validate a JSON manifest; errors name the file and the first bad field. */
export async function readJsonManifest<T>(path: string, schema: z.ZodType<T>): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DataError({ file: path, message: `cannot read the manifest (${(err as Error).message})` });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new DataError({ file: path, message: `not valid JSON (${(err as Error).message})` });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DataError({ file: path, message: `${issue.path.join('.') || '<root>'}: ${issue.message}` });
  }
  return parsed.data;
}
