import { z } from 'zod';
import { ConfigError } from '../../core/errors.ts';
import { Registry } from '../../core/registry.ts';
import { closestNames } from '../../core/suggest.ts';
import type { RewardCreateContext, RewardDefinition } from './definition.ts';
import { exactMatchReward } from './exact-match.ts';
import { mathReward } from './math.ts';
import { moduleReward } from './module-reward.ts';
import type { RewardFn } from './reward-fn.ts';

/** Built-in reward functions by config name. Plug-ins may `register` more. */
export const rewardDefinitions = new Registry<RewardDefinition>('reward function');
rewardDefinitions.register(mathReward as RewardDefinition);
rewardDefinitions.register(exactMatchReward as RewardDefinition);
rewardDefinitions.register(moduleReward as RewardDefinition);

/**
 * A reward in a config: a name (`math`), a name with params (`{ name: math, params: {…} }`),
 * or a user module (`{ module: ./rewards.ts, export: score }`).
 */
export const RewardConfigSchema = z.union([
  z.string().min(1),
  z
    .object({
      name: z.string().min(1),
      params: z.record(z.string(), z.unknown()).default({}),
    })
    .strict(),
  z
    .object({
      module: z.string().min(1),
      export: z.string().min(1).default('default'),
    })
    .strict(),
]);
export type RewardConfig = z.input<typeof RewardConfigSchema>;

function zodToConfigError(err: z.ZodError, path: string, file: string | undefined): ConfigError {
  const issue = err.issues[0]!;
  const sub = issue.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('');
  return new ConfigError({ path: `${path}${sub}`.replace(/^\./, ''), file, message: issue.message });
}

/**
 * Build a reward function from its config. `baseDir` is the config file's directory (module
 * paths resolve against it); `path`/`file` only label errors.
 */
export async function createReward(
  config: unknown,
  opts: { baseDir: string; path?: string; file?: string },
): Promise<RewardFn> {
  const path = opts.path ?? 'reward';
  const parsed = RewardConfigSchema.safeParse(config);
  if (!parsed.success)
    throw new ConfigError({
      path,
      file: opts.file,
      message: 'expected a reward name, { name, params } or { module, export }',
    });
  const c = parsed.data;
  let name: string;
  let params: unknown;
  let paramsPath: string;
  if (typeof c === 'string') {
    name = c;
    params = {};
    paramsPath = path;
  } else if ('name' in c) {
    name = c.name;
    params = c.params;
    paramsPath = `${path}.params`;
  } else {
    name = 'module';
    params = { module: c.module, export: c.export };
    paramsPath = path;
  }
  const namePath = typeof c === 'string' ? path : `${path}.name`;
  if (!rewardDefinitions.has(name)) {
    const near = closestNames(name, rewardDefinitions.names());
    throw new ConfigError({
      path: namePath,
      file: opts.file,
      message: `unknown reward function '${name}'`,
      hint:
        near.length > 0
          ? `did you mean ${near.map((n) => `'${n}'`).join(', ')}?`
          : `known: ${rewardDefinitions.names().join(', ')}`,
    });
  }
  const def = rewardDefinitions.get(name, namePath);
  const p = def.params.safeParse(params);
  if (!p.success) throw zodToConfigError(p.error, paramsPath, opts.file);
  const ctx: RewardCreateContext = { baseDir: opts.baseDir, path: paramsPath, file: opts.file };
  return await def.create(p.data, ctx);
}
