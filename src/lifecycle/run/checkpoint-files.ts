import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomicSync } from '../../core/atomic-file.ts';
import { DataError } from '../../core/errors.ts';
import { JsonValueSchema } from '../../core/task.ts';

/** What a checkpoint records besides the trainer's and explorer model's own files. */
export const CheckpointStateSchema = z.object({
  step: z.number().int().nonnegative(),
  trainSteps: z.number().int().nonnegative(),
  explorerVersion: z.number().int().nonnegative(),
  configHash: z.string(),
  seed: z.number().int(),
  selector: JsonValueSchema,
  sampler: JsonValueSchema.optional(),
  history: z.array(z.record(z.string(), JsonValueSchema)),
  counters: z.record(z.string(), z.number()),
  createdAt: z.number(),
});
export type CheckpointState = z.infer<typeof CheckpointStateSchema>;

const LatestSchema = z.object({ step: z.number().int(), dir: z.string() });

const STEP_DIR = /^step-(\d+)$/;

/** The state.json of one checkpoint folder, checked against its schema. */
export function readCheckpointState(dir: string): CheckpointState {
  const file = join(dir, 'state.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new DataError({ file, message: `checkpoint state is unreadable: ${(err as Error).message}` });
  }
  const parsed = CheckpointStateSchema.safeParse(raw);
  if (!parsed.success)
    throw new DataError({
      file,
      message: `checkpoint state does not match its schema: ${parsed.error.issues[0]?.message}`,
    });
  return parsed.data;
}

/** The `step-N` checkpoint folders directly inside `folder`, in step order. */
export function listCheckpoints(folder: string): { step: number; dir: string }[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isDirectory() && STEP_DIR.test(e.name))
    .map((e) => ({ step: Number(STEP_DIR.exec(e.name)![1]), dir: join(folder, e.name) }))
    .sort((a, b) => a.step - b.step);
}

/**
 * Checkpoints live in `<runDir>/checkpoints/step-000010/`; `latest.json` names the newest complete
 * one and is replaced atomically only after everything else is on disk, so a crash mid-checkpoint
 * leaves the previous checkpoint in force.
 */
export class CheckpointStore {
  readonly root: string;
  readonly keep: number;
  constructor(runDir: string, keep = 3) {
    this.root = join(runDir, 'checkpoints');
    this.keep = keep;
  }

  dirFor(step: number): string {
    return join(this.root, `step-${String(step).padStart(6, '0')}`);
  }

  /** Write a checkpoint: `writeParts(dir)` saves trainer/model files, then the state, then the pointer. */
  async save(state: CheckpointState, writeParts: (dir: string) => Promise<void>): Promise<string> {
    const dir = this.dirFor(state.step);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await writeParts(dir);
    writeFileAtomicSync(join(dir, 'state.json'), JSON.stringify(state));
    writeFileAtomicSync(
      join(this.root, 'latest.json'),
      JSON.stringify({ step: state.step, dir: this.dirFor(state.step) }),
    );
    this.prune(state.step);
    return dir;
  }

  latest(): { state: CheckpointState; dir: string } | null {
    const pointer = join(this.root, 'latest.json');
    if (!existsSync(pointer)) return null;
    const { dir } = LatestSchema.parse(JSON.parse(readFileSync(pointer, 'utf8')));
    return { state: readCheckpointState(dir), dir };
  }

  private prune(current: number): void {
    if (!existsSync(this.root)) return;
    const steps = readdirSync(this.root)
      .filter((d) => STEP_DIR.test(d))
      .map((d) => Number(d.slice(5)))
      .filter((s) => s !== current)
      .sort((a, b) => b - a);
    for (const s of steps.slice(Math.max(0, this.keep - 1)))
      rmSync(this.dirFor(s), { recursive: true, force: true });
  }
}
