import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { WinnowError } from '../core/errors.ts';
import type { RftConfig } from '../lifecycle/run/rft-config.ts';
import type { RftParts } from '../lifecycle/run/rft-parts.ts';
import type { WeightsRef } from './rollout-job.ts';

/** Kept this long in Redis: a resumed coordinator publishes again anyway. */
const WEIGHTS_TTL_S = 86_400;

/** The object whose `servedModel` routes requests (the OpenAI client), through a fault injector's `inner`. */
function servedTarget(model: unknown): { servedModel: string | undefined } | null {
  let m = model as Record<string, unknown> | undefined;
  for (let depth = 0; m && depth < 4; depth++) {
    if ('servedModel' in m) return m as unknown as { servedModel: string | undefined };
    m = m.inner as Record<string, unknown> | undefined;
  }
  return null;
}

/**
 * Coordinator side: what a worker must load to roll out a job of `version` exactly as the
 * coordinator's own explorer would.
 * - weight sync (served model): the coordinator loaded and routed to the version's adapter before the
 *   step (parts.serve), so the job carries the model name its requests must name;
 * - an in-process model that saves its explorer weights (the tiny policy): the coordinator saves
 *   them once per version into a Redis hash (file name → bytes), so workers need no shared disk;
 * - any other model has no weights to carry (a served model without weight sync stays version 0).
 */
export function weightsPublisher(
  parts: Pick<RftParts, 'explorer' | 'saveExplorer' | 'serve'>,
  config: RftConfig,
  redis: Redis,
  context: string,
): ((version: number) => Promise<WeightsRef | undefined>) | undefined {
  if (config.explorer.weightSync) {
    const target = servedTarget(parts.explorer.options.model);
    if (!target) return undefined;
    return async (version) => ({ kind: 'served', version, model: String(target.servedModel) });
  }
  const save = parts.saveExplorer;
  if (!save) return undefined;
  const published = new Map<number, Promise<WeightsRef>>();
  const keyOf = (v: number) => `${context}:weights:v${v}`;
  return (version) => {
    let ref = published.get(version);
    if (!ref) {
      ref = publishFiles(save, redis, keyOf(version), version);
      ref.catch(() => published.delete(version));
      published.set(version, ref);
      // Keep the two newest versions (a job of the one before may still be running); drop older ones.
      const old = [...published.keys()].sort((a, b) => b - a).slice(2);
      for (const v of old) {
        published.delete(v);
        void redis.del(keyOf(v)).catch(() => undefined);
      }
    }
    return ref;
  };
}

async function publishFiles(
  save: (dir: string) => Promise<void>,
  redis: Redis,
  key: string,
  version: number,
): Promise<WeightsRef> {
  const dir = await mkdtemp(join(tmpdir(), 'winnow-weights-'));
  try {
    await save(dir);
    const files: Record<string, Buffer> = {};
    for (const name of await readdir(dir)) files[name] = await readFile(join(dir, name));
    await redis.multi().del(key).hset(key, files).expire(key, WEIGHTS_TTL_S).exec();
    return { kind: 'files', version, key };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Worker side: what a built run offers to take another version's weights. */
export interface WeightsTarget {
  model: unknown;
  loadExplorer?: (dir: string) => Promise<void>;
}

/** Load `ref` into the worker's copy of the run's explorer. */
export async function applyWeights(ref: WeightsRef, target: WeightsTarget, redis: Redis): Promise<void> {
  if (ref.kind === 'served') {
    const served = servedTarget(target.model);
    if (!served)
      throw new WinnowError('weight sync names a served model, but this run’s model is not served');
    served.servedModel = ref.model;
    return;
  }
  if (!target.loadExplorer)
    throw new WinnowError(`the run's model cannot load explorer weights (version ${ref.version})`);
  const files = await redis.hgetallBuffer(ref.key);
  if (Object.keys(files).length === 0)
    throw new WinnowError(
      `weights of version ${ref.version} are not in Redis (${ref.key}; the coordinator is gone?)`,
    );
  const dir = await mkdtemp(join(tmpdir(), 'winnow-weights-'));
  try {
    for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
    await target.loadExplorer(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One set of weights at a time in a worker's copy of a run: jobs of the loaded version run side by
 * side; a job of another version waits until those finish, then loads its weights (once).
 */
export class VersionGate {
  private current: string | undefined;
  private running = 0;
  private loading: Promise<void> | undefined;
  private idle: Array<() => void> = [];

  async enter(key: string, load: () => Promise<void>): Promise<void> {
    for (;;) {
      if (this.loading) {
        await this.loading.catch(() => undefined);
        continue;
      }
      if (this.current === key) {
        this.running++;
        return;
      }
      if (this.running === 0) {
        this.current = undefined; // a load that fails half-way leaves no version named
        const p = load().then(() => {
          this.current = key;
        });
        this.loading = p
          .catch(() => undefined)
          .then(() => {
            this.loading = undefined;
          });
        await p; // a failed load fails this job (BullMQ tries it again); waiting jobs try their own
        continue;
      }
      await new Promise<void>((r) => this.idle.push(r));
    }
  }

  leave(): void {
    this.running--;
    if (this.running === 0) for (const w of this.idle.splice(0)) w();
  }
}
