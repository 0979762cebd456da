import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/core/errors.ts';
import { parseRftConfig, runRft } from '../../src/lifecycle/run/rft-run.ts';
import { defaultRegistries, type RunRegistries } from '../../src/lifecycle/run/run-registries.ts';
import { defineSelector } from '../../src/selectors/definition.ts';
import { SequentialSelector } from '../../src/selectors/sequential.ts';
import type { Selector } from '../../src/selectors/types.ts';
import { REPO_ROOT, winnow } from '../helpers/cli.ts';
import { smallRftRaw } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';
import { writeYaml } from './rft-files.ts';

const dir = tempDir('winnow-run-registries-');

/** A user's selector: tasks in order, every id it hands out written down in `picked`. */
function recordingSelector(name: string, picked: string[]) {
  return defineSelector({
    name,
    description: 'tasks in order, each pick recorded (a test plug-in)',
    params: z.strictObject({ skip: z.number().int().nonnegative().default(0) }),
    create: (p, { seed }) => {
      const inner: Selector = new SequentialSelector(seed);
      const select = inner.select.bind(inner);
      inner.select = (n, ctx) => {
        const ids = select(n + p.skip, ctx).slice(p.skip);
        picked.push(...ids);
        return ids;
      };
      return inner;
    },
  });
}

/** `mixed` over the one task set the small config has, its selector the user's. */
const mixedOver = (selector: unknown) => ({
  type: 'mixed',
  params: { tasksets: [{ taskset: 'arithmetic', selector }] },
});

async function run(name: string, registries: RunRegistries, selector: unknown, extra = {}) {
  const raw = smallRftRaw(name, {
    selector,
    lifecycle: { mode: 'sync', steps: 1, checkpointEvery: 1 },
    ...extra,
  });
  const config = parseRftConfig(raw, undefined, registries);
  return runRft(config, {
    baseDir: REPO_ROOT,
    dbDir: join(dir, `${name}-db`),
    runDir: join(dir, name),
    registries,
  });
}

describe('registries belong to one run', () => {
  it('a user selector registered for a run works inside mixed (its params checked and filled)', async () => {
    const picked: string[] = [];
    const registries = defaultRegistries();
    registries.selectors.register(recordingSelector('in_order', picked));
    const report = await run('mixed-user', registries, mixedOver({ type: 'in_order', params: { skip: 1 } }));
    expect(report.describe.selector).toBe('mixed');
    expect(report.steps).toBe(1);
    // One step of batchTasks 4: the user's selector handed out the 2nd to 5th tasks, in order.
    expect(picked).toEqual([
      't_b49bc00d78711bfd',
      't_cfb0df07bc4684ce',
      't_6920899c24ded909',
      't_32d416a61bf40d79',
    ]);
  }, 120_000);

  it('two runs in one process with different plug-ins under one name do not see each other', async () => {
    const a: string[] = [];
    const b: string[] = [];
    const regA = defaultRegistries();
    const regB = defaultRegistries();
    regA.selectors.register(recordingSelector('mine', a));
    // The same name again, on another run's registries: no clash, no sharing.
    regB.selectors.register(recordingSelector('mine', b));
    regB.selectors.register(recordingSelector('only_b', b));
    await run('iso-a', regA, mixedOver('mine'));
    expect(a.length).toBe(4);
    expect(b).toEqual([]);
    await run('iso-b', regB, { type: 'mine', params: { skip: 2 } });
    expect(b.length).toBe(4);
    expect(a.length).toBe(4);
    // Run A's registries never learnt B's selector; a fresh set knows neither.
    let err: unknown;
    try {
      parseRftConfig(smallRftRaw('iso-c', { selector: mixedOver('only_b') }), 'c.yaml', regA);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).path).toBe('selector.params.tasksets[0].selector');
    expect((err as Error).message).toMatch(/unknown selector 'only_b'/);
    expect(defaultRegistries().selectors.has('mine')).toBe(false);
  }, 240_000);

  it("a run's user-module sample strategy stays in that run: a later run's registries do not have it", async () => {
    const registries = defaultRegistries();
    const report = await run(
      'module-strategy',
      registries,
      { type: 'random' },
      {
        sampling: {
          module: './tests/lifecycle/fixtures/user-plugins/pass-through-strategy.ts',
          export: 'passThrough',
        },
      },
    );
    expect(report.steps).toBe(1);
    expect(report.history[0]!.trainSteps).toBe(1);
    const later = defaultRegistries();
    expect(later.strategies.names()).toEqual(['default', 'mix', 'staleness']);
    expect(registries.strategies.names()).toEqual(['default', 'mix', 'staleness']);
  }, 120_000);
});

describe('nested slots are checked at the door (winnow run with a config file)', () => {
  const cliDir = tempDir('winnow-nested-door-');
  const abs = (raw: Record<string, unknown>) =>
    JSON.parse(JSON.stringify(raw).replaceAll('"datasets/', `"${join(REPO_ROOT, 'datasets')}/`));
  const cases: Array<[string, unknown, string]> = [
    [
      'an unknown parameter two selectors deep (mixed → diverse → bots)',
      mixedOver({ type: 'diverse', params: { selector: { type: 'bots', params: { lamda: 0.2 } } } }),
      "selector.params.tasksets[0].selector.params.selector.params.lamda: unknown key 'lamda' (did you mean 'm', 'lambda'?)",
    ],
    [
      'an unknown selector name inside mixed',
      mixedOver({ type: 'pass_rat' }),
      "selector.params.tasksets[0].selector.type: unknown selector 'pass_rat' (did you mean 'pass_rate'?)",
    ],
    [
      'a bad value of a nested selector',
      mixedOver({ type: 'pass_rate', params: { target: 2 } }),
      'selector.params.tasksets[0].selector.params.target: Too big: expected number to be <=1',
    ],
  ];
  for (const [what, selector, message] of cases) {
    it(`${what}: exit 2, one line with the file and the full key path, nothing written`, () => {
      const file = writeYaml(join(cliDir, 'nested.yaml'), abs(smallRftRaw('nested', { selector })));
      const db = join(cliDir, 'db');
      const runs = join(cliDir, 'runs');
      const r = winnow(['run', file, '--db', db, '--runs-dir', runs]);
      expect(r.code).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`${file}: ${message}`);
      expect(existsSync(db)).toBe(false);
      expect(existsSync(runs)).toBe(false);
    });
  }
});
