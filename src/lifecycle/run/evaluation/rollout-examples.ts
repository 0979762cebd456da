import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Experience } from '../../../core/experience.ts';

/** Characters kept of a prompt or response: enough to recognise it, small enough for the run record. */
export const EXCERPT_CHARS = 200;

export const RolloutExampleSchema = z.object({
  step: z.number().int().nonnegative(),
  kind: z.enum(['best', 'worst']),
  taskId: z.string(),
  prompt: z.string(),
  response: z.string(),
  reward: z.number(),
});
/** The best or the worst rollout of one explorer step (Trinity's `rollout_examples`). */
export type RolloutExample = z.infer<typeof RolloutExampleSchema>;

export function excerpt(text: string, max = EXCERPT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function promptText(e: Experience): string {
  if (e.prompt !== undefined) return e.prompt;
  const last = e.messages?.[e.messages.length - 1];
  return last?.content ?? '';
}

/**
 * The best and the worst rollout of a step by reward (the first in rollout order wins a tie;
 * rollouts without a finite reward are not candidates). None when no rollout has a reward.
 */
export function pickExamples(step: number, rollouts: readonly Experience[]): RolloutExample[] {
  let best: Experience | undefined;
  let worst: Experience | undefined;
  for (const e of rollouts) {
    if (!Number.isFinite(e.reward)) continue;
    if (!best || e.reward > best.reward) best = e;
    if (!worst || e.reward < worst.reward) worst = e;
  }
  const of = (kind: RolloutExample['kind'], e: Experience): RolloutExample => ({
    step,
    kind,
    taskId: e.taskId,
    prompt: excerpt(promptText(e)),
    response: excerpt(e.response),
    reward: e.reward,
  });
  return best && worst ? [of('best', best), of('worst', worst)] : [];
}

/**
 * `<run folder>/rollout-examples.jsonl`: the examples of every step, appended as steps finish
 * exploring. A resumed run keeps the lines up to its checkpoint's step and redoes the rest, so it
 * ends with the same lines as an uninterrupted run.
 */
export class RolloutExampleLog {
  readonly file: string;
  constructor(runDir: string) {
    this.file = join(runDir, 'rollout-examples.jsonl');
  }

  /** Keep the examples of steps ≤ `step` (0: start empty). */
  keepUpTo(step: number): void {
    const kept = step === 0 ? [] : this.all().filter((x) => x.step <= step);
    writeFileSync(this.file, kept.map((x) => `${JSON.stringify(x)}\n`).join(''));
  }

  add(examples: readonly RolloutExample[]): void {
    if (examples.length > 0)
      appendFileSync(this.file, examples.map((x) => `${JSON.stringify(x)}\n`).join(''));
  }

  all(): RolloutExample[] {
    if (!existsSync(this.file)) return [];
    return readFileSync(this.file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => RolloutExampleSchema.parse(JSON.parse(l)));
  }
}
