import { z } from 'zod';
import type { Message, Task } from '../../core/task.ts';
import type { ChatMessage } from '../../models/tokenizer.ts';
import type { Drop } from '../operator.ts';
import { defineOperator } from '../operator.ts';
import { parseTaskPath, setTaskValue, type TaskPath } from './task-paths.ts';
import { lazyTokenizer, TokenizerParamSchema } from './task-tokenizer.ts';
import { fillTemplate, parseTemplate } from './template.ts';

const MetaPath = z
  .string()
  .min(1)
  .refine((s) => {
    const p = parseTaskPath(s, 'meta');
    return typeof p !== 'string' && p.root === 'meta';
  }, 'must name a meta key (meta.<key>)');

const Params = z.strictObject({
  tokenizer: TokenizerParamSchema,
  system: z
    .string()
    .optional()
    .describe('System prompt put first (unless the task already starts with a system turn).'),
  template: z
    .string()
    .min(1)
    .superRefine((t, ctx) => {
      const parsed = parseTemplate(t);
      if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: `bad template: ${parsed}` });
    })
    .optional()
    .describe('The user turn as a field template ("{prompt}\\n{meta.choices}"); default: the prompt.'),
  addGenerationPrompt: z
    .boolean()
    .default(true)
    .describe("End with the assistant turn's opening, so the model answers next."),
  target: MetaPath.default('meta.renderedPrompt').describe('Where the rendered prompt is stored.'),
  tokensFeature: z
    .string()
    .min(1)
    .default('promptTokens')
    .describe('Feature holding the rendered prompt’s token count.'),
});

/** The conversation of a task: its own messages (multi-turn), or one user turn from the prompt/template. */
function conversation(
  task: Task,
  system: string | undefined,
  template: ReturnType<typeof parseTemplate> | null,
): ChatMessage[] | string {
  let turns: Message[];
  if (task.messages !== undefined && task.messages.length > 0) {
    if (task.messages.every((m) => m.content.trim() === '')) return 'every message is empty';
    turns = task.messages;
  } else if (template !== null && typeof template !== 'string') {
    const { text, missing } = fillTemplate(template, task, 'lines');
    if (missing.length > 0) return `template: missing ${missing.join(', ')}`;
    if (text.trim() === '') return 'template renders to empty text';
    turns = [{ role: 'user', content: text }];
  } else {
    if (task.prompt === undefined) return 'the task has no prompt or messages';
    if (task.prompt.trim() === '') return 'empty prompt';
    turns = [{ role: 'user', content: task.prompt }];
  }
  const out: ChatMessage[] = turns.map((m) => ({ role: m.role, content: m.content }));
  if (system !== undefined && out[0]?.role !== 'system') out.unshift({ role: 'system', content: system });
  return out;
}

export const chatTemplateOp = defineOperator<Task, typeof Params>({
  name: 'chat_template',
  kind: 'map',
  rowWise: true,
  description:
    "Render each task's conversation through the tokenizer's own chat template; store the prompt and its token count.",
  params: Params,
  create(p) {
    const tokenizer = lazyTokenizer(p.tokenizer);
    const template = p.template === undefined ? null : parseTemplate(p.template);
    const target = parseTaskPath(p.target, 'meta') as TaskPath;
    return {
      name: 'chat_template',
      kind: 'map',
      async process(batch, ctx) {
        const tok = await tokenizer(ctx);
        const rows: Task[] = [];
        const dropped: Drop<Task>[] = [];
        let tokens = 0;
        for (const task of batch) {
          const messages = conversation(task, p.system, template);
          if (typeof messages === 'string') {
            dropped.push({ row: task, reason: `nothing to render: ${messages}` });
            continue;
          }
          const rendered = tok.applyChatTemplate(messages, { addGenerationPrompt: p.addGenerationPrompt });
          const n = tok.count(rendered);
          tokens += n;
          const out = setTaskValue(task, target, rendered);
          rows.push({ ...out, features: { ...out.features, [p.tokensFeature]: n } });
        }
        return { rows, dropped, metrics: { [p.tokensFeature]: tokens } };
      },
    };
  },
});
