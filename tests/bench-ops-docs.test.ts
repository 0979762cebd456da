import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { taskOperatorRegistry } from '../src/operators/registries.ts';
import { DATA_JUICER_OPS } from '../src/recipes/data-juicer-ops.ts';

/**
 * docs/operators.md's "Every operator" table against the code: one row per registered task
 * operator (the set `bench ops` measures from), its kind, exactly its parameters, and the
 * Data-Juicer ops the recipe translation maps onto it.
 */
const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'operators.md'), 'utf8');
const table = doc.slice(doc.indexOf('## Every operator'), doc.indexOf('## Words and sentences'));
const rows = new Map(
  table
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const [name, kind, params, dj] = l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      const codes = (c: string) => [...c.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      return [
        codes(name!)[0]!,
        { kind, params: codes(params!), dj: dj!.startsWith('(') ? [] : codes(dj!).sort() },
      ];
    }),
);

describe('docs/operators.md lists every operator', () => {
  const registry = taskOperatorRegistry();
  it('one row per registered task operator, and no other', () => {
    expect([...rows.keys()].sort()).toEqual(registry.names().sort());
    expect(table).toContain(`All ${registry.names().length} registered task operators`);
  });

  it('with its kind, its parameters and its Data-Juicer names', () => {
    const dj = new Map<string, string[]>();
    for (const [name, t] of Object.entries(DATA_JUICER_OPS))
      dj.set(t.winnow, [...(dj.get(t.winnow) ?? []), name]);
    for (const name of registry.names()) {
      const def = registry.get(name);
      const schema = z.toJSONSchema(def.params as z.ZodType, { io: 'input', unrepresentable: 'any' }) as {
        properties?: Record<string, unknown>;
      };
      expect(rows.get(name), name).toEqual({
        kind: def.kind,
        params: Object.keys(schema.properties ?? {}),
        dj: (dj.get(name) ?? []).sort(),
      });
    }
  });
});
