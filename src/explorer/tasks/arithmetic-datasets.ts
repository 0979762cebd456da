import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataError, errorMessage } from '../../core/errors.ts';
import { type Task, TaskSchema } from '../../core/task.ts';
import { generateArithmeticTasks } from './arithmetic.ts';

/** How datasets/arithmetic/{train,heldout}.jsonl are made (scripts/make-arithmetic.ts writes them). */
export const ARITHMETIC_DATASET_RECIPE = {
  heldoutSeed: 20_251_101,
  heldoutPerDomain: 25,
  trainSeed: 20_251_102,
  trainPerDomain: 250,
} as const;

/**
 * The shipped arithmetic datasets, rebuilt in memory: the held-out set first (taskset
 * `arithmetic-heldout`), then the training set (taskset `arithmetic`) with every held-out prompt
 * excluded, so the two never share a problem.
 */
export function arithmeticDatasets(recipe = ARITHMETIC_DATASET_RECIPE): { train: Task[]; heldout: Task[] } {
  const heldout = generateArithmeticTasks({
    seed: recipe.heldoutSeed,
    perDomain: recipe.heldoutPerDomain,
    taskset: 'arithmetic-heldout',
  });
  const train = generateArithmeticTasks({
    seed: recipe.trainSeed,
    perDomain: recipe.trainPerDomain,
    taskset: 'arithmetic',
    exclude: new Set(heldout.map((t) => t.prompt!)),
  });
  return { train, heldout };
}

/** Where the shipped arithmetic files live (datasets/arithmetic at the package root). */
export function arithmeticDatasetDir(): string {
  return fileURLToPath(new URL('../../../datasets/arithmetic/', import.meta.url));
}

/** Read a JSONL file of tasks (one Task per line), validating each; errors name the file and line. */
export async function loadTaskFile(file: string): Promise<Task[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new DataError({ file, message: `cannot read the task file (${errorMessage(err)})` });
  }
  const tasks: Task[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (err) {
      throw new DataError({ file, row: i + 1, message: `not valid JSON (${errorMessage(err)})` });
    }
    const parsed = TaskSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new DataError({
        file,
        row: i + 1,
        message: `${issue.path.join('.') || '<root>'}: ${issue.message}`,
      });
    }
    tasks.push(parsed.data);
  });
  return tasks;
}

/** The shipped training and held-out arithmetic tasks, read from datasets/arithmetic. */
export async function loadArithmeticDatasets(
  dir = arithmeticDatasetDir(),
): Promise<{ train: Task[]; heldout: Task[] }> {
  const [train, heldout] = await Promise.all([
    loadTaskFile(join(dir, 'train.jsonl')),
    loadTaskFile(join(dir, 'heldout.jsonl')),
  ]);
  return { train, heldout };
}
