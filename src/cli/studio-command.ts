import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { resolveRunsDir } from '../core/places.ts';
import { UsageError } from '../core/usage-error.ts';
import { readableDbDir } from '../inspect/table-target.ts';
import { isLoopback } from '../serve/bind-policy.ts';
import { parseCommand } from './command-spec.ts';
import { STUDIO_SPEC } from './specs/studio.ts';

function defaultUser(): string {
  try {
    return process.env.USER || userInfo().username || 'anonymous';
  } catch {
    return 'anonymous';
  }
}

export async function studioCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(STUDIO_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const dbDir = readableDbDir(values.db);
  const envToken = process.env.WINNOW_STUDIO_TOKEN;
  let token = values.token ?? (envToken !== undefined && envToken !== '' ? envToken : undefined);
  if (token !== undefined && token.length < 8)
    throw new UsageError(
      `--token is ${token.length} character(s) long; at least 8 are needed (e.g. $(openssl rand -hex 16))`,
    );
  if (token === undefined && !isLoopback(values.host)) token = randomBytes(16).toString('hex');
  const user = values.user ?? defaultUser();
  // Loaded on demand: --help stays fast.
  const { startStudioServer } = await import('../studio/studio-server.ts');
  const server = await startStudioServer({
    dbDir,
    runsDir: resolveRunsDir({ flag: values.runs }),
    rootDir: process.cwd(),
    readOnly: values['read-only'],
    user,
    host: values.host,
    port: values.port,
    token,
    log: (line) => process.stderr.write(`${line}\n`),
  }).catch((err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`port ${values.port} is in use (pass --port 0 for a free one)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new UsageError(`cannot bind --host ${values.host} (${code})`);
    throw err;
  });
  const shown = token !== undefined ? `${server.url}?token=${token}` : server.url;
  process.stdout.write(`studio: ${shown}\n`);
  process.stderr.write(
    `database ${dbDir}; edits as '${user}'${values['read-only'] ? '; read-only' : ''}; Ctrl-C stops\n`,
  );
  await new Promise<void>((done) => {
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  await server.close();
  return 0;
}
