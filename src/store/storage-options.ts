import { z } from 'zod';
import { ConfigError } from '../core/errors.ts';
import { resolveDbDir } from '../core/places.ts';

/**
 * LanceDB storage options: string keys LanceDB's object stores know (`aws_endpoint`, `aws_region`,
 * `allow_http`, `timeout`, …) mapped to string values. Credentials are better left to each
 * machine's environment (AWS_ACCESS_KEY_ID, …), which LanceDB reads itself: whatever is in a
 * config is also stored in Redis for workers.
 */
export const StorageOptionsSchema = z
  .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*$/, 'a key: letters, digits, _ . -'), z.string())
  .describe(
    'LanceDB storage options for the database (s3://…, gs://…, az://…): e.g. { aws_region: eu-west-1, aws_endpoint: "http://minio:9000", allow_http: "true" }. See docs/scale-out.md.',
  );
export type StorageOptions = z.infer<typeof StorageOptionsSchema>;

const PairSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]*=/, 'expected KEY=VALUE');

/** `--storage-option KEY=VALUE[,KEY=VALUE]` (repeatable through commas): a bad pair names the flag (exit 2). */
export function parseStorageOptionFlags(pairs: readonly string[] | undefined): StorageOptions {
  const out: StorageOptions = {};
  for (const pair of pairs ?? []) {
    const ok = PairSchema.safeParse(pair);
    if (!ok.success)
      throw new ConfigError({
        path: '--storage-option',
        message: `'${pair}': ${ok.error.issues[0]?.message ?? 'expected KEY=VALUE'}`,
        hint: 'e.g. --storage-option aws_region=eu-west-1,allow_http=true',
      });
    const at = pair.indexOf('=');
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** The config's `storageOptions` (when valid: an invalid one is reported by the config's own schema), then the flags. */
export function storageOptionsOf(raw: unknown, flags: readonly string[] | undefined): StorageOptions {
  const fromConfig =
    raw && typeof raw === 'object' && 'storageOptions' in raw
      ? StorageOptionsSchema.safeParse((raw as { storageOptions: unknown }).storageOptions)
      : undefined;
  return { ...(fromConfig?.success ? fromConfig.data : {}), ...parseStorageOptionFlags(flags) };
}

/**
 * `winnow run`: set the run's storage options for every connection it opens, and open a database
 * URI (s3://…) once before anything is written, so an unreachable store or a wrong option fails
 * with one line naming the URI and nothing created (not even the run folder).
 */
export async function applyStorageOptions(
  raw: unknown,
  flags: readonly string[] | undefined,
  where: { dbFlag: string | undefined; configDir: string },
): Promise<void> {
  const options = storageOptionsOf(raw, flags);
  const configDb = raw && typeof raw === 'object' && 'db' in raw ? (raw as { db: unknown }).db : undefined;
  const db = resolveDbDir({
    flag: where.dbFlag,
    configValue: typeof configDb === 'string' ? configDb : undefined,
    configDir: where.configDir,
  });
  const uri = /^[a-z][a-z0-9+.-]*:\/\//i.test(db);
  if (Object.keys(options).length === 0 && !uri) return;
  const { connect, setStorageOptions } = await import('./connection.ts');
  setStorageOptions(options);
  if (uri) await connect(db);
}
