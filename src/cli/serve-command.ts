import { resolve } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { UsageError } from '../core/usage-error.ts';
import { parseCommand } from './command-spec.ts';
import { packageVersion } from './package-version.ts';
import { SERVE_SPEC } from './specs/serve.ts';

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
