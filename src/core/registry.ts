import { ConfigError } from './errors.ts';
import { closestNames } from './suggest.ts';

/**
 * Maps config names to implementations, so YAML can name any built-in or registered plug-in.
 * Unknown names fail with the config path and the closest known names.
 */
export class Registry<D extends { readonly name: string }> {
  private readonly items = new Map<string, D>();
  readonly what: string;
  constructor(what: string) {
    this.what = what;
  }

  register(def: D): D {
    if (this.items.has(def.name)) throw new Error(`${this.what} '${def.name}' is already registered`);
    this.items.set(def.name, def);
    return def;
  }

  has(name: string): boolean {
    return this.items.has(name);
  }

  /** Look a name up; `path` is the config path reported if it is unknown. */
  get(name: string, path = '', file?: string): D {
    const def = this.items.get(name);
    if (def) return def;
    const near = closestNames(name, this.names());
    throw new ConfigError({
      path,
      ...(file ? { file } : {}),
      message: `unknown ${this.what} '${name}'`,
      hint:
        near.length > 0
          ? `did you mean ${near.map((n) => `'${n}'`).join(', ')}?`
          : `known: ${this.names().join(', ')}`,
    });
  }

  names(): string[] {
    return [...this.items.keys()].sort();
  }

  all(): D[] {
    return this.names().map((n) => this.items.get(n)!);
  }
}
