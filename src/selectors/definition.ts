import type { z } from 'zod';
import type { PluginConfig } from '../core/plugin.ts';
import type { Registry } from '../core/registry.ts';
import type { Selector } from './types.ts';

/**
 * What a selector's factory gets besides its params: its seed, and a way to build the selectors
 * nested in its params (`mixed`'s task sets, `diverse`'s inner one) from the RUN's registry, so a
 * selector the run registered works at any depth.
 */
export interface SelectorBuildContext {
  readonly seed: number;
  /** The config path of this selector (`selector`, `selector.params.tasksets[0].selector`), for errors. */
  readonly path: string;
  /** The registry this selector was found in; nested selectors are looked up in it too. */
  readonly selectors: Registry<SelectorDefinition>;
  /** Build a nested selector (its params were parsed with this one's; nothing is parsed again). */
  build(slot: PluginConfig, seed: number, path: string): Selector;
}

/** A selector a config can name: its parameter schema (zod, with defaults) and a factory. */
export interface SelectorDefinition<P = unknown> {
  readonly name: string;
  readonly description: string;
  readonly params: z.ZodType<P>;
  /**
   * For a selector whose params hold other selectors: its params schema with `slot` (the run's
   * selector-slot schema) at each nested place, so the nested names and params are checked at the
   * door with the rest of the config. `params` stays the stand-alone form (docs, `winnow schema`).
   */
  readonly paramsWith?: (slot: z.ZodType) => z.ZodType;
  /** A fresh, not yet initialised selector. */
  create(params: P, ctx: SelectorBuildContext): Selector;
}

/** Keeps a definition's parameter type flowing into `create`. */
export function defineSelector<S extends z.ZodType>(def: {
  name: string;
  description: string;
  params: S;
  paramsWith?: (slot: z.ZodType) => z.ZodType;
  create(params: z.output<S>, ctx: SelectorBuildContext): Selector;
}): SelectorDefinition<z.output<S>> {
  return def as SelectorDefinition<z.output<S>>;
}
