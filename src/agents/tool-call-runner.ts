import { z } from 'zod';
import { errorMessage } from '../core/errors.ts';
import type { Task } from '../core/task.ts';
import type { GeneratedToolCall } from '../models/rollout-model.ts';
import { type Tool, toolOutputText } from './tool.ts';

/** Why a tool call produced no result. Each is counted per trajectory. */
export const TOOL_FAILURE_KINDS = [
  'malformed',
  'unknown_tool',
  'invalid_arguments',
  'tool_error',
  'timeout',
] as const;
export type ToolFailureKind = (typeof TOOL_FAILURE_KINDS)[number];

/** One executed (or refused) tool call: `content` is what the model reads back in the `tool` message. */
export const ToolOutcomeSchema = z.object({
  callId: z.string(),
  name: z.string(),
  ok: z.boolean(),
  content: z.string(),
  failure: z.enum(TOOL_FAILURE_KINDS).optional(),
});
export type ToolOutcome = z.infer<typeof ToolOutcomeSchema>;

const TIMED_OUT = Symbol('timed out');

function firstIssue(err: z.ZodError): string {
  const i = err.issues[0]!;
  return `${i.path.join('.') || 'arguments'}: ${i.message}`;
}

/**
 * Run one call against `tools`: the arguments must be JSON and pass the tool's schema; the tool
 * gets `timeoutMs` (its signal aborts then and the call counts as a timeout). Every failure comes
 * back as an outcome whose content states the reason, so the model can see and repair it.
 */
export async function runToolCall(
  call: GeneratedToolCall,
  tools: readonly Tool[],
  opts: { task: Task; timeoutMs: number; signal?: AbortSignal },
): Promise<ToolOutcome> {
  const fail = (failure: ToolFailureKind, reason: string): ToolOutcome => ({
    callId: call.id,
    name: call.name,
    ok: false,
    content: `error (${failure}): ${reason}`,
    failure,
  });
  if (call.problem !== undefined) return fail('malformed', call.problem);
  const tool = tools.find((t) => t.name === call.name);
  if (!tool)
    return fail(
      'unknown_tool',
      `no tool named '${call.name}'; tools: ${tools.map((t) => t.name).join(', ') || 'none'}`,
    );
  let raw: unknown;
  try {
    raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch {
    return fail('malformed', `arguments are not JSON: ${call.arguments.slice(0, 80)}`);
  }
  const args = tool.args.safeParse(raw);
  if (!args.success) return fail('invalid_arguments', firstIssue(args.error));
  const timer = new AbortController();
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal;
  let handle: NodeJS.Timeout | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    handle = setTimeout(() => {
      timer.abort(new Error('tool timeout'));
      resolve(TIMED_OUT);
    }, opts.timeoutMs);
  });
  try {
    const result = await Promise.race([
      Promise.resolve().then(() => tool.run(args.data, { task: opts.task, signal })),
      timedOut,
    ]);
    if (result === TIMED_OUT) return fail('timeout', `no result within ${opts.timeoutMs} ms`);
    return { callId: call.id, name: call.name, ok: true, content: toolOutputText(result) };
  } catch (err) {
    if (timer.signal.aborted) return fail('timeout', `no result within ${opts.timeoutMs} ms`);
    return fail('tool_error', errorMessage(err).split('\n')[0] ?? 'failed');
  } finally {
    clearTimeout(handle);
  }
}
