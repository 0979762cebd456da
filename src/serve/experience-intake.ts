import { type Experience, ExperienceSchema } from '../core/experience.ts';
import { experienceIdOf, groupIdOf } from '../core/rollout-ids.ts';
import type { Task } from '../core/task.ts';
import { badRequest } from './http-error.ts';
import type { ExperienceWrite } from './schemas.ts';

/** What the server knows when it fills in what a client left out. */
export interface IntakeContext {
  taskById: ReadonlyMap<string, Task>;
  /** The current select step: the default `exploreStep` (the step whose tasks the client rolled out). */
  selectStep: number;
}

const at = (i: number, key: string) => `experiences[${i}].${key}`;

/**
 * Turn written rows into Experiences: fill the defaults (docs/serve.md), then check what the
 * schema cannot — the task is one of the run's, `promptLength` fits `tokens`, and every per-token
 * array is in the response layout (one entry per `tokens.slice(promptLength)`, or empty). The
 * first problem is a 400 naming its field; nothing is written unless every row is good.
 */
export function intakeExperiences(rows: readonly ExperienceWrite[], ctx: IntakeContext): Experience[] {
  const nextRunIndex = new Map<string, number>();
  const ids = new Map<string, number>();
  return rows.map((r, i) => {
    const task = ctx.taskById.get(r.taskId);
    if (!task)
      throw badRequest(
        at(i, 'taskId'),
        `unknown task id '${r.taskId}'`,
        'task ids come from POST /v1/select (the run’s task set)',
      );
    const exploreStep = r.exploreStep ?? ctx.selectStep;
    const groupId = r.groupId ?? groupIdOf(exploreStep, r.taskId);
    const runIndex = r.runIndex ?? nextRunIndex.get(groupId) ?? 0;
    nextRunIndex.set(groupId, Math.max(runIndex + 1, nextRunIndex.get(groupId) ?? 0));
    const id = r.id ?? experienceIdOf(groupId, runIndex);
    const seen = ids.get(id);
    if (seen !== undefined)
      throw badRequest(
        at(i, r.id !== undefined ? 'id' : 'runIndex'),
        `experience id '${id}' is also the id of experiences[${seen}]`,
        'each row of a request needs its own id (or its own runIndex within its group)',
      );
    ids.set(id, i);
    checkTokenLayout(r, i);
    return ExperienceSchema.parse({
      ...r,
      id,
      taskset: r.taskset ?? task.taskset,
      groupId,
      runIndex,
      exploreStep,
      modelVersion: r.modelVersion ?? 0,
      reward: r.reward ?? Number.NaN,
      ...(r.prompt === undefined && r.messages === undefined && task.prompt !== undefined
        ? { prompt: task.prompt }
        : {}),
      ...(r.messages === undefined && r.prompt === undefined && task.messages !== undefined
        ? { messages: task.messages }
        : {}),
    });
  });
}

/** Per-token arrays cover the response tokens only (CONTEXT: one alignment for every array). */
function checkTokenLayout(r: ExperienceWrite, i: number): void {
  const total = r.tokens.length;
  if (r.promptLength > total)
    throw badRequest(
      at(i, 'promptLength'),
      `promptLength ${r.promptLength} is more than the ${total} token(s) given`,
      'tokens holds the prompt tokens followed by the response tokens',
    );
  const response = total - r.promptLength;
  const arrays: Array<[string, readonly number[] | undefined]> = [
    ['logprobs', r.logprobs],
    ['actionMask', r.actionMask],
    ['advantages', r.advantages],
  ];
  for (const [key, values] of arrays) {
    if (values === undefined || values.length === 0 || values.length === response) continue;
    throw badRequest(
      at(i, key),
      `${key} has ${values.length} entries; expected ${response} (one per response token: tokens.slice(promptLength))`,
      key === 'actionMask' && values.length === total
        ? 'the mask covers the response tokens only, not the prompt; or leave it empty to train on every response token'
        : 'per-token arrays cover the response tokens only; leave one empty when it is unknown',
    );
  }
}
