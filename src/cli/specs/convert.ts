// `winnow convert`'s definition (options, help, docs/cli.md), apart from what runs it (convert-command.ts),
// so that help and the command table load no more than this.
import type { CommandSpec } from '../command-spec.ts';

export const CONVERT_SPEC = {
  name: 'convert',
  args: 'RECIPE | --all DIR',
  maxArgs: 1,
  summary:
    'Print the Winnow task pipeline YAML equivalent to a Data-Juicer recipe, so it can be kept and edited as a Winnow pipeline. Validates it; writes nothing but --out.',
  options: {
    out: { type: 'string', value: 'FILE', description: 'write the pipeline to FILE instead of stdout' },
    all: {
      type: 'boolean',
      description:
        'check every .yaml/.yml under DIR instead: a table of what converts and what is refused, with every blocker (writes nothing; exit 0 when all convert, 1 when some are refused)',
    },
    json: { type: 'boolean', description: 'with --all: the table as JSON' },
  },
  notes: [
    "The recipe's paths resolve against the working folder, as in Data-Juicer; the pipeline names its input relative to FILE's folder (absolute on stdout).",
    'A recipe with an operator or parameter Winnow cannot honour is refused (exit 2), as winnow run refuses it (docs/recipes.md).',
  ],
  examples: [
    'winnow convert recipes/clean-web.yaml',
    'winnow convert recipes/clean-web.yaml --out pipelines/clean-web.yaml',
    'winnow convert --all data-juicer/configs',
  ],
} as const satisfies CommandSpec;
