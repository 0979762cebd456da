import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { UsageError } from './args.ts';
import { type CommandSpec, parseCommand } from './command-spec.ts';
import { packageVersion } from './package-version.ts';

export const SERVE_SPEC = {
  name: 'serve',
  args: 'CONFIG.yaml',
  maxArgs: 1,
  summary:
    "Serve an RFT run's selector and experience buffer over HTTP, for training loops in other languages " +
    '(select tasks, send feedback, write experiences, sample leased batches as JSON or Arrow, acknowledge). ' +
    'State is checkpointed after every change, so a restarted server (--resume) continues where it was.',
  options: {
    host: {
      type: 'string',
      value: 'HOST',
      default: '127.0.0.1',
      description: 'address to bind; anything but loopback needs a token',
    },
    port: { type: 'int', value: 'N', min: 0, max: 65535, default: 8470, description: 'port (0: a free one)' },
    token: {
      type: 'string',
      value: 'T',
      description:
        'require Authorization: Bearer T on every request (default $WINNOW_SERVE_TOKEN; prefer the variable: flags show in ps)',
    },
    run: { type: 'string', value: 'ID', description: 'name the new run, or the run --resume continues' },
    resume: {
      type: 'boolean',
      description:
        "continue the latest serve run of the config's name (or --run ID) from its last checkpoint",
    },
    db: {
      type: 'string',
      value: 'DIR',
      description: "database folder (default: the config's db:, relative to the YAML, else ./.winnow/db)",
    },
    'runs-dir': { type: 'string', value: 'DIR', description: 'folder holding one folder per run' },
    'run-dir': { type: 'string', value: 'DIR', description: "this run's exact folder" },
    seed: {
      type: 'int',
      value: 'N',
      description: "seed for every random choice (overrides the config's seed)",
    },
    'max-body': {
      type: 'int',
      value: 'BYTES',
      min: 1024,
      default: 64 * 1024 * 1024,
      description: 'largest request body accepted (larger: 413)',
    },
  },
  notes: [
    'Routes (docs/serve.md): GET /v1/health, /v1/version, /v1/metrics, /v1/pending; POST /v1/select, /v1/feedback, /v1/experiences, /v1/sample, /v1/ack, /v1/rewards.',
    'Prints "listening on http://HOST:PORT" on stdout once the run is open; SIGINT/SIGTERM finish the request in progress and stop.',
    'A Python package (standard library only; TRL, verl and PyTorch adapters): pip install ./python (docs/integrations.md).',
  ],
  examples: [
    'winnow serve pipelines/arithmetic-bots.yaml --port 8470',
    'WINNOW_SERVE_TOKEN=$(openssl rand -hex 16) winnow serve run.yaml --host 0.0.0.0 --resume',
  ],
} as const satisfies CommandSpec;

export async function serveCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(SERVE_SPEC, argv);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (!file)
    throw new UsageError('winnow serve needs the RFT config: winnow serve CONFIG.yaml (winnow serve --help)');
  const envToken = process.env.WINNOW_SERVE_TOKEN;
  const token = values.token ?? (envToken !== undefined && envToken !== '' ? envToken : undefined);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // Loaded on demand, like `winnow run`'s RFT stack: --help stays fast.
  const { startServe } = await import('../serve/serve-start.ts');
  const run = await startServe({
    configFile: file,
    host: values.host,
    port: values.port,
    token,
    dbDir: values.db,
    runsDir: values['runs-dir'],
    runDir: values['run-dir'],
    runId: values.run,
    resume: values.resume,
    seed: values.seed,
    maxBodyBytes: values['max-body'],
    winnowVersion: packageVersion(),
    log,
  }).catch((err: unknown) => {
    // Errors deep in the build know their config path, not the file: say which file.
    if (!(err instanceof ConfigError) || err.file !== undefined || err.path.startsWith('--')) throw err;
    const where = `${err.path || '<root>'}: `;
    const message = err.message.startsWith(where) ? err.message.slice(where.length) : err.message;
    throw new ConfigError({ path: err.path, file: resolve(file), message });
  });
  process.stdout.write(`listening on ${run.url} (run ${run.runId})\n`);
  const signal = await new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', () => done('SIGINT'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
  log(`${signal}: finishing the request in progress and stopping`);
  await run.stop(`stopped by ${signal}`);
  log(
    `stopped; winnow serve ${file} --resume --run ${run.runId} continues at revision ${run.session.revision}`,
  );
  return 0;
}
