import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BENCH_SPECS } from '../../bench/bench-specs.ts';
import {
  type CommandSpec,
  flagText,
  groupHelpText,
  helpText,
  parseCommand,
  usageLine,
} from '../../src/cli/command-spec.ts';
import { commandSpecs } from '../../src/cli/commands.ts';
import { CLI_DOC_FILE, cliReference, referenceIn } from '../../tools/cli-doc.ts';
import { winnow } from '../helpers/cli.ts';
import { captureMain } from './capture.ts';

afterEach(() => vi.restoreAllMocks());

const COMMANDS = await commandSpecs();

const SINGLE = COMMANDS.flatMap((c) => ('subcommands' in c.spec ? [] : [c.spec]));
const BENCHES: readonly CommandSpec[] = BENCH_SPECS;
const benchName = (s: CommandSpec) => s.name.replace(/^bench /, '');

/** Every option of `spec`, as --help must show it, and an example. */
function expectFullHelp(out: string, spec: CommandSpec): void {
  for (const [name, o] of Object.entries(spec.options))
    expect(out, `${spec.name} --${name}`).toContain(flagText(name, o));
  expect(out).toContain(usageLine(spec));
  expect(out).toMatch(/^examples?:$/m);
  for (const e of spec.examples) expect(out).toContain(`  ${e}`);
}

describe('--help and winnow help, for every command the registry lists', () => {
  it('lists run, inspect, export, schema, convert, runs, compare, gc, tokenize, judge, serve, dev-server, studio, worker and bench', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual([
      'run',
      'inspect',
      'export',
      'schema',
      'convert',
      'runs',
      'compare',
      'gc',
      'tokenize',
      'judge',
      'serve',
      'dev-server',
      'studio',
      'worker',
      'bench',
    ]);
    expect(BENCH_SPECS.map(benchName)).toEqual([
      'ingest',
      'selection',
      'learning',
      'curriculum',
      'buffer',
      'replay',
      'tokenize',
      'judge',
      'loop',
      'studio',
      'ops',
      'scale',
      'agents',
      'minhash',
    ]);
  });

  for (const spec of SINGLE) {
    it(`winnow ${spec.name} --help, -h and winnow help ${spec.name} print the same full help, exit 0`, async () => {
      const a = await captureMain([spec.name, '--help']);
      const b = await captureMain(['help', spec.name]);
      const c = await captureMain([spec.name, '-h']);
      for (const r of [a, b, c]) {
        expect(r.code).toBe(0);
        expect(r.stderr).toBe('');
      }
      expect(a.stdout).toBe(`${helpText(spec)}\n`);
      expect(b.stdout).toBe(a.stdout);
      expect(c.stdout).toBe(a.stdout);
      expectFullHelp(a.stdout, spec);
    });
  }

  for (const spec of BENCHES) {
    const name = benchName(spec);
    it(`winnow bench ${name} --help and winnow help bench ${name}: every flag the parser takes, exit 0`, async () => {
      const a = await captureMain(['bench', name, '--help']);
      const b = await captureMain(['help', 'bench', name]);
      expect([a.code, b.code, a.stderr, b.stderr]).toEqual([0, 0, '', '']);
      expect(a.stdout).toBe(`${helpText(spec)}\n`);
      expect(b.stdout).toBe(a.stdout);
      expectFullHelp(a.stdout, spec);
      // The parser accepts exactly the listed flags: each with a valid value parses, defaults fill in.
      for (const [flag, o] of Object.entries(spec.options)) {
        const value =
          o.type === 'boolean' ? [] : [String(o.default ?? o.choices?.[0] ?? o.min ?? 1).split(',')[0]!];
        const parsed = parseCommand(spec, [`--${flag}`, ...value]);
        expect(parsed?.given.has(flag), `${spec.name} --${flag}`).toBe(true);
      }
    });
  }

  it('winnow bench --help and winnow help bench list the 13 benchmarks, exit 0', async () => {
    const a = await captureMain(['bench', '--help']);
    const b = await captureMain(['help', 'bench']);
    expect([a.code, b.code]).toEqual([0, 0]);
    const group = COMMANDS.find((c) => c.name === 'bench')!.spec;
    expect('subcommands' in group && `${groupHelpText(group)}\n`).toBe(a.stdout);
    expect(b.stdout).toBe(a.stdout);
    const listed = a.stdout.match(/^ {2}bench (\w+)/gm)?.map((l) => l.trim().slice('bench '.length));
    expect(listed).toEqual([
      'ingest',
      'selection',
      'learning',
      'curriculum',
      'buffer',
      'replay',
      'tokenize',
      'judge',
      'loop',
      'studio',
      'ops',
      'scale',
      'agents',
      'minhash',
    ]);
    expect(a.stdout).toMatch(/^examples?:$/m);
  });

  it('winnow --help, -h and winnow help print the usage of every command and benchmark with all their flags', async () => {
    // One at a time: captureMain captures the process's stdout, and help loads the specs asynchronously.
    const runs: Awaited<ReturnType<typeof captureMain>>[] = [];
    for (const argv of [['--help'], ['-h'], ['help']]) runs.push(await captureMain(argv));
    for (const r of runs) expect([r.code, r.stdout]).toEqual([0, runs[0]!.stdout]);
    const out = runs[0]!.stdout;
    for (const spec of [...SINGLE, ...BENCHES]) expect(out).toContain(usageLine(spec));
    for (const f of ['--debug', '--version', 'exit codes:']) expect(out).toContain(f);
    for (const code of [0, 1, 2, 3]) expect(out).toMatch(new RegExp(`^ {2}${code} {2}\\S`, 'm'));
    // With no command at all: the same text, but exit 2 (nothing was asked).
    const none = await captureMain([]);
    expect([none.code, none.stdout]).toEqual([2, out]);
  });

  it('--debug anywhere does not change help', async () => {
    const a = await captureMain(['--debug', 'gc', '--help']);
    const b = await captureMain(['gc', '--help', '--debug']);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toContain('usage: winnow gc');
  });
});

describe('the real CLI', () => {
  it('answers --help for every command the hook walks, exit 0, no stack', () => {
    for (const args of [
      ['run', '--help'],
      ['inspect', '--help'],
      ['export', '--help'],
      ['bench', 'ingest', '--help'],
      ['bench', 'learning', '--help'],
    ]) {
      const r = winnow(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).not.toMatch(/^\s+at /m);
      expect(r.stdout).toContain(`usage: winnow ${args.slice(0, -1).join(' ')}`);
    }
  }, 60_000);
});

describe('docs/cli.md', () => {
  it('holds exactly the reference generated from the specs between its markers', () => {
    const doc = readFileSync(CLI_DOC_FILE, 'utf8');
    const fresh = cliReference();
    expect(referenceIn(doc)).toBe(fresh);
    for (const spec of [...SINGLE, ...BENCHES]) expect(fresh).toContain(usageLine(spec));
    for (const code of [0, 1, 2, 3]) expect(fresh).toMatch(new RegExp(`^\\| ${code} \\| `, 'm'));
  });
});
