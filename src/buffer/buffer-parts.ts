import { parseConfig } from '../core/config.ts';
import type { Registry } from '../core/registry.ts';
import { removerRegistry } from './removers/registry.ts';
import type { Remover, RemoverDefinition } from './removers/remover.ts';
import { samplerRegistry } from './samplers/registry.ts';
import type { Sampler, SamplerContext, SamplerDefinition } from './samplers/sampler.ts';

/** A definition with its params already checked by its own schema: built without parsing again. */
export interface ResolvedPart<D> {
  def: D;
  params: unknown;
}

/**
 * A buffer's plug-in parts, resolved: the sampler, and the remover (null: the one the sampler
 * names, with its default params). A run resolves them at its door (src/lifecycle/run/run-buffer.ts);
 * `ExperienceBuffer.open` resolves them from a raw config.
 */
export interface BufferParts {
  sampler: ResolvedPart<SamplerDefinition>;
  remover: ResolvedPart<RemoverDefinition> | null;
}

/** Look a `{ type, params }` part up and parse its params (errors name `path.type` / `path.params.<key>`). */
export function resolvePart<D extends { readonly params: unknown }>(
  spec: { type: string; params?: unknown },
  registry: Registry<D & { readonly name: string }>,
  where: { path: string; file?: string | undefined },
): ResolvedPart<D> {
  const def = registry.get(spec.type, `${where.path}.type`, where.file);
  const params = parseConfig(def.params as never, spec.params ?? {}, {
    path: `${where.path}.params`,
    ...(where.file ? { file: where.file } : {}),
  });
  return { def, params };
}

/** The parts a parsed buffer config names, looked up in the given registries (default: the built-ins). */
export function resolveBufferParts(
  cfg: {
    sampler: { type: string; params: unknown };
    remover?: { type: string; params: unknown } | undefined;
  },
  where: {
    path: string;
    file?: string | undefined;
    samplers?: Registry<SamplerDefinition> | undefined;
    removers?: Registry<RemoverDefinition> | undefined;
  },
): BufferParts {
  const at = (part: string) => ({ path: `${where.path}.${part}`, file: where.file });
  return {
    sampler: resolvePart(cfg.sampler, where.samplers ?? samplerRegistry(), at('sampler')),
    remover: cfg.remover
      ? resolvePart(cfg.remover, where.removers ?? removerRegistry(), at('remover'))
      : null,
  };
}

/**
 * Build resolved parts without parsing again. A part without a remover gets the one its sampler
 * names (default params), looked up in `removers` (default: the built-ins).
 */
export function createBufferParts(
  parts: BufferParts,
  ctx: SamplerContext,
  removers: Registry<RemoverDefinition> | undefined,
): { sampler: Sampler; remover: Remover } {
  const sampler = parts.sampler.def.create(parts.sampler.params, ctx);
  const removerPart =
    parts.remover ??
    resolvePart({ type: sampler.remover }, removers ?? removerRegistry(), {
      path: 'buffer.remover',
    });
  return { sampler, remover: removerPart.def.create(removerPart.params) };
}
