import { UsageError } from '../core/usage-error.ts';
import { parseCommand } from './command-spec.ts';
import { WORKER_SPEC } from './specs/worker.ts';

export async function workerCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(WORKER_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  if (!values.queue)
    throw new UsageError(
      'winnow worker needs the queue: winnow worker --queue redis://host:port (winnow worker --help)',
    );
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // Loaded on demand: --help stays fast.
  const { parseQueueUrl } = await import('../scale/queue-url.ts');
  const options = {
    queue: parseQueueUrl(values.queue),
    concurrency: values.concurrency,
    visibilityMs: values['visibility-timeout'],
    log,
  };
  const worker =
    values.role === 'pipeline'
      ? new (await import('../scale/pipeline-worker.ts')).PipelineWorker(options)
      : new (await import('../scale/rollout-worker.ts')).RolloutWorker(options);
  await worker.start();
  const signal = await new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', () => done('SIGINT'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
  log(`${signal}: finishing the jobs in progress`);
  await worker.close();
  log(`stopped after ${worker.jobsDone} job(s)`);
  return 0;
}
