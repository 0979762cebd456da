import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import { defineReward } from './definition.ts';
import { checkRewardResult, type RewardFn } from './reward-fn.ts';

/** Only file paths are imported: never package names or URLs, so a config cannot pull code from elsewhere. */
function isFilePath(p: string): boolean {
  return p.startsWith('./') || p.startsWith('../') || isAbsolute(p);
}

/**
 * A user reward function: `module` is a file path written in the config (resolved against the
 * config file's directory) and `export` names a function `(ctx) => { reward, info? } | number`
 * (sync or async). Its results are checked on every call.
 */
export const moduleReward = defineReward({
  name: 'module',
  description: 'a reward function exported by a user module (path relative to the config file)',
  params: z
    .object({
      module: z.string().min(1),
      export: z.string().min(1).default('default'),
    })
    .strict(),
  create: async (p, ctx): Promise<RewardFn> => {
    const at = (key: string) => (ctx.path ? `${ctx.path}.${key}` : key);
    if (!isFilePath(p.module))
      throw new ConfigError({
        path: at('module'),
        file: ctx.file,
        message: `'${p.module}' is not a file path`,
        hint: 'write a path starting with ./ or ../ (relative to the config file) or an absolute path',
      });
    const file = resolve(ctx.baseDir, p.module);
    if (!existsSync(file))
      throw new ConfigError({
        path: at('module'),
        file: ctx.file,
        message: `reward module not found: ${file}`,
      });
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError({
        path: at('module'),
        file: ctx.file,
        message: `could not load reward module ${file}: ${errorMessage(err)}`,
      });
    }
    if (!(p.export in mod)) {
      const names = Object.keys(mod).filter((k) => typeof mod[k] === 'function');
      throw new ConfigError({
        path: at('export'),
        file: ctx.file,
        message: `${p.module} has no export '${p.export}'`,
        hint: names.length > 0 ? `its function exports: ${names.join(', ')}` : 'it exports no functions',
      });
    }
    const fn = mod[p.export];
    if (typeof fn !== 'function')
      throw new ConfigError({
        path: at('export'),
        file: ctx.file,
        message: `export '${p.export}' of ${p.module} is ${fn === null ? 'null' : typeof fn}; expected a function (ctx) => { reward, info? }`,
      });
    const source = `${p.module}#${p.export}`;
    return async (rc) => checkRewardResult(await (fn as (c: unknown) => unknown)(rc), source, rc.task.id);
  },
});
