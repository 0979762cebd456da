// `winnow schema`'s definition (options, help, docs/cli.md), apart from what runs it (schema-command.ts),
// so that help and the command table load no more than this.
import type { CommandSpec } from '../command-spec.ts';

export const SCHEMA_SPEC = {
  name: 'schema',
  args: '[task|rft]',
  summary:
    'Print the JSON Schema (draft 2020-12) of a config: task pipelines (task, the default) or RFT runs (rft). ' +
    'Every plug-in slot and operator has its params typed.',
  options: {
    out: { type: 'string', value: 'FILE', description: 'write the schema to FILE instead of stdout' },
  },
  notes: [
    'Editors read it: put `# yaml-language-server: $schema=./winnow-rft.schema.json` at the top of a config.',
  ],
  examples: ['winnow schema > winnow-task.schema.json', 'winnow schema rft --out winnow-rft.schema.json'],
} as const satisfies CommandSpec;
