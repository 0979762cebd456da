// `winnow dev-server`'s definition, apart from what runs it (dev-server/dev-server-command.ts).
import type { CommandSpec } from '../command-spec.ts';

export const DEV_SERVER_SPEC = {
  name: 'dev-server',
  args: '',
  maxArgs: 0,
  summary:
    'A local OpenAI-compatible model server for trying Winnow without a GPU: completions and chat with ' +
    "logprobs and token ids, and vLLM's runtime LoRA endpoints (/v1/load_lora_adapter, /v1/unload_lora_adapter), " +
    'so the external-trainer loop and weight sync run on a laptop. Its built-in model answers "1" or "2" ' +
    '(alternating samples) and ends every sample with token 5000 + the loaded adapter’s version; --script gives fixed answers instead.',
  options: {
    host: {
      type: 'string',
      value: 'HOST',
      default: '127.0.0.1',
      description: 'address to bind (it has no authentication: keep it on loopback)',
    },
    port: { type: 'int', value: 'N', min: 0, max: 65535, default: 8000, description: 'port (0: a free one)' },
    script: {
      type: 'string',
      value: 'FILE.jsonl',
      description:
        'scripted chat answers, one JSON line per request in order: {"content": "…", "tokenIds": [..], "logprobs": [..]} (tool calls: "toolCalls")',
    },
  },
  notes: [
    'Prints "listening on http://HOST:PORT/v1" on stdout; every adapter load and unload is one line on stderr. SIGINT/SIGTERM stop it.',
    'Point a config at it: explorer.model { type: openai, params: { baseUrl: http://127.0.0.1:8000/v1 } } and explorer.weightSync { type: vllm_lora }.',
    'A walkthrough with the standard-library trainer: docs/integrations.md.',
  ],
  examples: ['winnow dev-server', 'winnow dev-server --port 8001 --script answers.jsonl'],
} as const satisfies CommandSpec;
