import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.ts';
import { spawnWinnow } from './harness.ts';
import { pipelineYaml, STACK_TRACE } from './pipeline-cli.ts';
import { writeRftYaml } from './rft-files.ts';

/**
 * Invalid configs: `winnow run` exits 2 before doing any work, and the one-line error names the
 * file, the config path of the problem, and what to write instead.
 */
const dir = tempDir('winnow-config-errors-');
writeFileSync(join(dir, 'ok.csv'), 'id,question,answer\na,What is 1 + 1?,#### 2\n');

async function runYaml(name: string, text: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  const r = await spawnWinnow(['run', file, '--db', join(dir, `db-${name}`)]);
  return { ...r, file };
}

function expectConfigError(r: { code: number | null; stderr: string; file: string }, rest: string): void {
  expect(r.code).toBe(2);
  // An RFT run first lists the resolved paths it will use; the error is the last line, and the only one.
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines[lines.length - 1]).toBe(`error: ${r.file}: ${rest}`);
  expect(lines.filter((l) => l.startsWith('error:'))).toHaveLength(1);
  expect(r.stderr).not.toMatch(STACK_TRACE);
}

describe('invalid task pipeline configs', () => {
  it('an unknown operator: names operators[i].op and the closest operator names', async () => {
    const r = await runYaml('unknown-op', pipelineYaml('ok.csv', ['  - op: lenght_filter']));
    expectConfigError(r, "operators[1].op: unknown operator 'lenght_filter' (did you mean 'length_filter'?)");
  });

  it('a wrong parameter type: names operators[i].params.<key> and the expected type', async () => {
    const r = await runYaml(
      'wrong-type',
      pipelineYaml('ok.csv', ['  - op: length_filter', '    params: { minWords: five }']),
    );
    expectConfigError(
      r,
      'operators[1].params.minWords: expected a number, got a string (write a number here)',
    );
  });

  it('a negative batch size: names input.batchSize and the bound', async () => {
    const text = pipelineYaml('ok.csv').replace('  path: "ok.csv"', '  path: "ok.csv"\n  batchSize: -8');
    const r = await runYaml('negative-batch', text);
    expectConfigError(
      r,
      'input.batchSize: Too small: expected number to be >0 (see `winnow schema` for every key’s range)',
    );
  });

  it('a misspelt top-level key and an unknown kind are refused by name', async () => {
    const typo = await runYaml('typo-key', `${pipelineYaml('ok.csv')}stpes: []\n`);
    expectConfigError(
      typo,
      "stpes: unknown key 'stpes' (valid keys: name, kind, description, seed, db, runsDir, workers, engine, input, mapping, operators, output)",
    );
    const old = await runYaml('old-steps', pipelineYaml('ok.csv').replace('operators:', 'steps:'));
    expectConfigError(old, "steps: unknown key 'steps' ('steps' was renamed: use 'operators')");
    const kind = await runYaml('bad-kind', `kind: train\n${pipelineYaml('ok.csv')}`);
    expectConfigError(kind, "kind: unknown pipeline kind 'train' (expected 'tasks' or 'rft')");
  });

  it('broken YAML syntax: names the line and column', async () => {
    const r = await runYaml('syntax', `${pipelineYaml('ok.csv')}  - { op: normalize_whitespace\n`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*syntax\.yaml: line \d+, column \d+: invalid YAML: /);
  });
});

describe('invalid RFT configs', () => {
  it('a negative explorer batch: names explorer.batchTasks and the bound', async () => {
    const { file } = writeRftYaml(dir, 'rft-neg', {}, (c) => {
      (c.explorer as Record<string, unknown>).batchTasks = -4;
    });
    const r = await spawnWinnow(['run', file]);
    expectConfigError(
      { ...r, file },
      'explorer.batchTasks: Too small: expected number to be >0 (see `winnow schema` for every key’s range)',
    );
  });

  it('an unknown selector and a wrong trainer parameter type: the file and config path are named', async () => {
    const sel = writeRftYaml(dir, 'rft-selector', { selector: { type: 'botz' } });
    const r1 = await spawnWinnow(['run', sel.file]);
    expectConfigError(
      { ...r1, file: sel.file },
      "selector.type: unknown selector 'botz' (did you mean 'bots', 'dots'?)",
    );
    const tr = writeRftYaml(dir, 'rft-trainer', {
      trainer: { type: 'policy_gradient', params: { lr: 'fast' } },
    });
    const r2 = await spawnWinnow(['run', tr.file]);
    expectConfigError(
      { ...r2, file: tr.file },
      'trainer.params.lr: expected a number, got a string (write a number here)',
    );
  });

  it('a fault rate above 1 and an unknown read discipline are refused by path', async () => {
    const f = writeRftYaml(dir, 'rft-faults', {}, (c) => {
      (c.explorer as Record<string, unknown>).faults = { errorRate: 1.5 };
    });
    const r1 = await spawnWinnow(['run', f.file]);
    expectConfigError(
      { ...r1, file: f.file },
      'explorer.faults.errorRate: Too big: expected number to be <=1 (see `winnow schema` for every key’s range)',
    );
    const b = writeRftYaml(dir, 'rft-discipline', { buffer: { sampler: { type: 'fifoo' } } });
    const r2 = await spawnWinnow(['run', b.file]);
    expectConfigError(
      { ...r2, file: b.file },
      "buffer.sampler.type: unknown sampler 'fifoo' (did you mean 'fifo', 'lifo'?)",
    );
  });
});
