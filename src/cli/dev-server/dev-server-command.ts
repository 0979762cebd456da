import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DataError } from '../../core/errors.ts';
import { UsageError } from '../../core/usage-error.ts';
import { parseCommand } from '../command-spec.ts';
import { DEV_SERVER_SPEC } from '../specs/dev-server.ts';
import { OpenAiDevServer, type ScriptedTurn } from './openai-dev-server.ts';

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
