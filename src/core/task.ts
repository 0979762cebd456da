import { z } from 'zod';

/** One chat turn. */
export const MessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
});
export type Message = z.infer<typeof MessageSchema>;

/** Where a row came from: the file and its 1-based line (text formats) or 0-based row index (columnar formats). */
export const SourceSchema = z.object({
  file: z.string(),
  row: z.number().int().nonnegative(),
});
export type Source = z.infer<typeof SourceSchema>;

/** JSON value, for `meta` and `info` bags. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(JsonValueSchema),
    z.record(z.string(), JsonValueSchema),
  ]),
);
export const JsonObjectSchema = z.record(z.string(), JsonValueSchema);
export type JsonObject = z.infer<typeof JsonObjectSchema>;

/**
 * A task: a prompt (or chat) with an optional reference answer and named numeric features
 * (difficulty, reference pass rates…). `id` is user-supplied or a content hash; always a string.
 */
export const TaskSchema = z
  .object({
    id: z.string().min(1),
    taskset: z.string().min(1),
    prompt: z.string().optional(),
    messages: z.array(MessageSchema).optional(),
    answer: z.string().optional(),
    features: z.record(z.string(), z.number()).default({}),
    meta: JsonObjectSchema.default({}),
    source: SourceSchema.optional(),
  })
  .refine((t) => t.prompt !== undefined || (t.messages !== undefined && t.messages.length > 0), {
    message: 'a task needs a prompt or a non-empty messages list',
    path: ['prompt'],
  });
export type Task = z.infer<typeof TaskSchema>;

/** The text that defines a task, for dedup and hashing: the prompt, or the chat turns joined. */
export function taskText(task: Pick<Task, 'prompt' | 'messages'>): string {
  if (task.prompt !== undefined) return task.prompt;
  return (task.messages ?? []).map((m) => `${m.role}: ${m.content}`).join('\n');
}
