import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { REPO_ROOT, winnow } from '../helpers/cli.ts';
import { tempDir } from '../helpers/tmp.ts';

const root = tempDir('winnow-judge-run-');

function parseRows(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * The demo's config (pipelines/arithmetic-bots.yaml, what `npm run demo` runs) as shipped: its task
 * file is named relative to the config's folder (`../datasets/…`), so the run's answers are only
 * reachable through that folder. Shortened to 2 steps and a small held-out set.
 */
function demoConfig(): string {
  const pipelines = join(root, 'pipelines');
  mkdirSync(pipelines, { recursive: true });
  symlinkSync(join(REPO_ROOT, 'datasets'), join(root, 'datasets'));
  const c = parse(readFileSync(join(REPO_ROOT, 'pipelines', 'arithmetic-bots.yaml'), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  delete (c as Record<string, unknown>).runsDir;
  c.lifecycle = { ...c.lifecycle, steps: 2, checkpointEvery: 2 };
  c.heldout = { ...c.heldout, size: 20 };
  c.explorer = { ...c.explorer, batchTasks: 16 };
  const file = join(pipelines, 'bots.yaml');
  writeFileSync(file, stringify(c));
  return file;
}

describe('winnow judge --run', () => {
  const db = join(root, 'db');
  const runs = join(root, 'runs');

  it("re-scores the demo's run: every row finds its answer in the run's task file, and the verdicts are the run's", () => {
    const config = demoConfig();
    const ran = winnow(['run', config, '--db', db, '--runs-dir', runs, '--quiet']);
    expect(ran.code, ran.stderr).toBe(0);
    const out = join(root, 'rescored.jsonl');
    // From another folder than the config's: the run's relative task path still resolves.
    const r = winnow(['judge', '--run', 'arithmetic-bots-1', '--db', db, '--output', out, '--quiet'], {
      cwd: runs,
    });
    expect(r.code, r.stderr).toBe(0);
    const rows = parseRows(readFileSync(out, 'utf8'));
    expect(rows.length).toBeGreaterThan(0);
    const reasons = new Set(rows.map((x) => (x.info as { reason?: string }).reason ?? 'none'));
    expect(reasons.has('no_reference')).toBe(false);
    expect(rows.filter((x) => (x.info as { missing_field?: string }).missing_field !== undefined)).toEqual(
      [],
    );
    // The run's own reward (exact_match) gave these rewards: re-scoring gives them again.
    expect(rows.map((x) => x.reward)).toEqual(rows.map((x) => x.reward_before));
    expect(new Set(rows.map((x) => x.reward))).toEqual(new Set([0, 1]));
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(`^judged ${rows.length} rows, mean reward `),
    );
    expect(r.stderr).not.toMatch(/no_reference/);
  }, 600_000);

  it('--reward overrides the run reward; an unknown run is one line naming the runs there', () => {
    const out = join(root, 'rescored-math.jsonl');
    const r = winnow([
      'judge',
      '--run',
      'arithmetic-bots-1',
      '--db',
      db,
      '--reward',
      'math',
      '--output',
      out,
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseRows(readFileSync(out, 'utf8'));
    expect(rows.map((x) => x.reward)).toEqual(rows.map((x) => x.reward_before));
    const missing = winnow(['judge', '--run', 'arithmetic-bots-9', '--db', db]);
    expect([missing.code, missing.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(missing.stderr).toContain("no run 'arithmetic-bots-9'");
    const both = winnow(['judge', '--run', 'arithmetic-bots-1', '--db', db, '--input', out]);
    expect([both.code, both.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(both.stderr).toContain('--run and --input cannot be used together');
  }, 600_000);
});

describe('--answer-field into info', () => {
  it('reads info.answer and info.meta.gold, from objects and from JSON text', () => {
    const input = join(root, 'nested.jsonl');
    const rows = [
      { id: 'a', response: '\\boxed{12}', info: { answer: '12' } },
      { id: 'b', response: '\\boxed{13}', info: JSON.stringify({ answer: '12' }) },
      { id: 'c', response: '\\boxed{\\frac12}', info: { meta: { gold: '0.5' } } },
      { id: 'd', response: '\\boxed{\\{1,2\\}}', info: JSON.stringify({ meta: { gold: '\\{1,2\\}' } }) },
      { id: 'e', response: '\\boxed{3}', info: { other: 1 } },
    ];
    writeFileSync(input, `${rows.map((x) => JSON.stringify(x)).join('\n')}\n`);
    const judge = (field: string) => {
      const r = winnow(['judge', '--reward', 'math', '--input', input, '--answer-field', field, '--quiet']);
      expect(r.code, r.stderr).toBe(0);
      return parseRows(r.stdout).map((x) => [x.id, x.reward, (x.info as { reason: string }).reason]);
    };
    expect(judge('info.answer')).toEqual([
      ['a', 1, 'equal'],
      ['b', 0, 'not_equal'],
      ['c', 0, 'no_reference'],
      ['d', 0, 'no_reference'],
      ['e', 0, 'no_reference'],
    ]);
    expect(judge('info.meta.gold')).toEqual([
      ['a', 0, 'no_reference'],
      ['b', 0, 'no_reference'],
      ['c', 1, 'equal'],
      ['d', 1, 'equal'],
      ['e', 0, 'no_reference'],
    ]);
  }, 300_000);
});
