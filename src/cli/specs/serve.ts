// `winnow serve`'s definition (options, help, docs/cli.md), apart from what runs it (serve-command.ts),
// so that help and the command table load no more than this.
import type { CommandSpec } from '../command-spec.ts';

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
