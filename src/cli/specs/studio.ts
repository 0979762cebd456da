// `winnow studio`'s definition (options, help, docs/cli.md), apart from what runs it (studio-command.ts),
// so that help and the command table load no more than this.
import { type CommandSpec, DB_OPTION } from '../command-spec.ts';

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
