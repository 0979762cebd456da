import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DataError } from '../../core/errors.ts';
import { UsageError } from '../args.ts';
import { type CommandSpec, parseCommand } from '../command-spec.ts';
import { OpenAiDevServer, type ScriptedTurn } from './openai-dev-server.ts';

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

const ScriptedTurnSchema = z.strictObject({
  content: z.string().nullable().optional(),
  toolCalls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
  tokenIds: z.array(z.number().int()),
  logprobs: z.array(z.number()),
});

/** The scripted answers of a JSONL file, each line checked; a bad line is one error naming it. */
export function readScript(file: string): ScriptedTurn[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new DataError({
      file,
      message: `cannot read the script: ${(err as NodeJS.ErrnoException).code ?? err}`,
    });
  }
  const turns: ScriptedTurn[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new DataError({ file, message: `line ${i + 1} is not JSON` });
    }
    const parsed = ScriptedTurnSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new DataError({
        file,
        message: `line ${i + 1}: ${issue.path.join('.') || '<line>'}: ${issue.message}`,
      });
    }
    turns.push(parsed.data as ScriptedTurn);
  }
  if (turns.length === 0) throw new DataError({ file, message: 'the script has no answers' });
  return turns;
}

export async function devServerCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(DEV_SERVER_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const server = new OpenAiDevServer();
  if (values.script !== undefined) {
    server.script('default', readScript(resolve(values.script)));
    server.defaultBehaviour = 'script';
  }
  server.onLora = (e) =>
    log(`${e.op === 'load' ? 'load' : 'unload'} ${e.name}${e.path ? ` from ${e.path}` : ''}: ${e.status}`);
  try {
    await server.start({ host: values.host, port: values.port });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot listen on ${values.host}:${values.port} (${code ?? String(err)}); choose another --port, or --port 0 for a free one`,
    );
  }
  if (!/^(127\.|localhost$|\[?::1\]?$)/.test(values.host))
    log(`warning: listening on ${values.host}, beyond this machine; the dev server has no authentication`);
  process.stdout.write(`listening on ${server.baseUrl}\n`);
  const signal = await new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', () => done('SIGINT'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
  log(`${signal}: stopping`);
  await server.stop();
  return 0;
}
