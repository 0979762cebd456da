import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { resolveRunsDir } from '../core/places.ts';
import { isLoopback } from '../serve/bind-policy.ts';
import { UsageError } from './args.ts';
import { type CommandSpec, DB_OPTION, parseCommand } from './command-spec.ts';
import { readableDbDir } from './table-target.ts';

export const STUDIO_SPEC = {
  name: 'studio',
  args: '',
  maxArgs: 0,
  summary:
    'A local web app over the database and run folders: tables and versions, a task browser (filter, full-text search, sort, page), ' +
    'rejected rows, run comparison, experience groups with token view, and human edits (accept, reject, edit, reward override, ' +
    'preference pairs), each a new table version that can be undone. Fully offline.',
  options: {
    db: DB_OPTION,
    runs: {
      type: 'string',
      value: 'DIR',
      description: 'folder holding one folder per run (default: .winnow/runs)',
    },
    port: {
      type: 'int',
      value: 'N',
      min: 0,
      max: 65535,
      default: 8471,
      description: 'port (0: a free one; the URL is printed)',
    },
    host: {
      type: 'string',
      value: 'HOST',
      default: '127.0.0.1',
      description:
        'address to bind; anything but loopback needs a token (one is generated and printed if --token is not given)',
    },
    token: {
      type: 'string',
      value: 'T',
      description:
        'require this token on every request (default $WINNOW_STUDIO_TOKEN; prefer the variable: flags show in ps)',
    },
    'read-only': { type: 'boolean', description: 'refuse every edit (403)' },
    user: {
      type: 'string',
      value: 'NAME',
      description: 'the name edits are recorded under (default: your login name)',
    },
  },
  notes: [
    'Prints "studio: http://HOST:PORT/" on stdout once it listens (with ?token=… when a token is needed); Ctrl-C stops it.',
    'Edits are recorded in the studio_edits table (winnow inspect studio_edits); preference pairs in studio_preferences,',
    'which winnow export --format trl-dpo reads. See docs/studio.md.',
  ],
  examples: [
    'winnow studio',
    'winnow studio --db .winnow/db --port 0 --user alice',
    'WINNOW_STUDIO_TOKEN=$(openssl rand -hex 16) winnow studio --host 0.0.0.0 --read-only',
  ],
} as const satisfies CommandSpec;

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
