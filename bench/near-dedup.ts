/**
 * near_dedup throughput and quality on synthetic short documents.
 *
 *   npx node bench/near-dedup.ts [docs=100000] [dupShare=0.1] [workers=cores]
 *
 * Builds `docs` documents of ~300 characters from a random vocabulary; a `dupShare` of them are
 * planted near-duplicates of an earlier document (1–3 word substitutions, a dropped word, or
 * case/spacing/punctuation changes). Prints docs/s for near_dedup next to exact_dedup over the
 * same documents (the baseline, measured in the same run), and recall/precision on the planted
 * pairs, with recall split by the pair's true Jaccard similarity. Also runs near_dedup the way a
 * pipeline with `workers` does (signatures on worker threads, the LSH index on the main thread),
 * with its recall and whether it drops exactly the rows one thread drops.
 */
import { availableParallelism } from 'node:os';
import { Rng } from '../src/core/rng.ts';
import type { Task } from '../src/core/task.ts';
import type { OperatorContext, OperatorDefinition } from '../src/operators/operator.ts';
import { exactDedupOp } from '../src/operators/task/exact-dedup.ts';
import { MinHasher } from '../src/operators/task/minhash.ts';
import { nearDedupOp } from '../src/operators/task/near-dedup.ts';
import { nearDedupPooled } from './ingest/near-dedup-pool.ts';

const N = Number(process.argv[2] ?? 100_000);
const DUP_SHARE = Number(process.argv[3] ?? 0.1);
const WORKERS = Number(process.argv[4] ?? availableParallelism());
const BATCH = 8192;

const rng = new Rng('bench:near-dedup');
const letters = 'abcdefghijklmnopqrstuvwxyz';
const vocab = Array.from({ length: 20_000 }, () => {
  const len = 2 + rng.int(8);
  let w = '';
  for (let i = 0; i < len; i++) w += letters[rng.int(26)];
  return w;
});
/** Zipf-ish word choice: common words are common, as in real text. */
function word(): string {
  return vocab[Math.floor(vocab.length * rng.float() ** 3)]!;
}
function freshDoc(): string {
  const words: string[] = [];
  let len = 0;
  while (len < 300) {
    const w = word();
    words.push(w);
    len += w.length + 1;
  }
  return `${words.join(' ')}?`;
}
function perturb(text: string): string {
  const words = text.split(' ');
  const kind = rng.int(4);
  if (kind === 0 || kind === 1) {
    const edits = 1 + rng.int(3);
    for (let e = 0; e < edits; e++) words[rng.int(words.length)] = word();
  } else if (kind === 2) words.splice(rng.int(words.length), 1);
  else return `  ${text.toUpperCase().replace(/ /g, '  ').replace('?', '!')} `;
  return words.join(' ');
}

const docs: Task[] = [];
const plantedSource = new Map<string, string>(); // duplicate id → id of the document it copies
for (let i = 0; i < N; i++) {
  const id = `d${i}`;
  if (i > 100 && rng.float() < DUP_SHARE) {
    const src = docs[rng.int(docs.length)]!;
    // Copy an original, not another copy, so each planted pair has one clear source.
    const root = plantedSource.get(src.id) ?? src.id;
    const original = docs[Number(root.slice(1))]!;
    docs.push({ id, taskset: 'bench', prompt: perturb(original.prompt!), features: {}, meta: {} });
    plantedSource.set(id, root);
  } else docs.push({ id, taskset: 'bench', prompt: freshDoc(), features: {}, meta: {} });
}

const ctx: OperatorContext = { rng: new Rng(1), seed: 1, runId: 'bench', warn: () => {} };

async function timeOp<P>(def: OperatorDefinition<Task, P>, params: unknown) {
  const op = def.create(def.params.parse(params));
  const dropped: Array<{ row: Task; reason: string }> = [];
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  for (let i = 0; i < docs.length; i += BATCH) {
    const r = await op.process(docs.slice(i, i + BATCH), ctx);
    dropped.push(...r.dropped);
  }
  const cpu = process.cpuUsage(c0);
  const ms = performance.now() - t0;
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, dropped };
}

// Warm up both paths once on a slice so JIT compilation is not billed to either.
await timeOp(exactDedupOp, {});
const exact = await timeOp(exactDedupOp, {});
const near = await timeOp(nearDedupOp, {});
const pooled = await nearDedupPooled(docs, { workers: WORKERS, seed: 1, batch: BATCH });
const sameDrops =
  JSON.stringify(pooled.dropped.map((d) => [d.row.id, d.reason])) ===
  JSON.stringify(near.dropped.map((d) => [d.row.id, d.reason]));

// True Jaccard of planted pairs over the same shingles near_dedup uses (char 5-grams, lower-cased).
const hasher = new MinHasher({ tokenizer: 'char', ngram: 5, permutations: 1, seed: 1, lowercase: true });
const byId = new Map(docs.map((d) => [d.id, d]));
function jaccard(a: string, b: string): number {
  const sa = new Set(hasher.shingleHashes(a));
  const sb = new Set(hasher.shingleHashes(b));
  let inter = 0;
  for (const x of sa) if (sb.has(x)) inter++;
  return inter / (sa.size + sb.size - inter);
}
const droppedIds = new Map(near.dropped.map((d) => [d.row.id, d.reason]));
const pooledIds = new Set(pooled.dropped.map((d) => d.row.id));
let pooledFound = 0;
const buckets = [
  { label: 'J ≥ 0.9', lo: 0.9, hi: 2, n: 0, hit: 0 },
  { label: '0.8 ≤ J < 0.9', lo: 0.8, hi: 0.9, n: 0, hit: 0 },
  { label: '0.7 ≤ J < 0.8', lo: 0.7, hi: 0.8, n: 0, hit: 0 },
  { label: 'J < 0.7', lo: -1, hi: 0.7, n: 0, hit: 0 },
];
let found = 0;
for (const [dup, src] of plantedSource) {
  const j = jaccard(byId.get(dup)!.prompt!, byId.get(src)!.prompt!);
  const b = buckets.find((x) => j >= x.lo && j < x.hi)!;
  b.n++;
  if (pooledIds.has(dup)) pooledFound++;
  if (droppedIds.has(dup)) {
    b.hit++;
    found++;
  }
}
// A drop is correct when it removes a planted copy (whichever earlier member of its family it names).
let correct = 0;
for (const d of near.dropped) if (plantedSource.has(d.row.id)) correct++;

const rate = (ms: number) => Math.round(docs.length / (ms / 1000));
const rows = [
  ['exact_dedup (baseline)', exact, 1],
  ['near_dedup (char 5, 128 perms, 16 bands)', near, exact.cpuMs / near.cpuMs],
] as const;
console.log(
  `\n${docs.length} docs, mean ${Math.round(docs.reduce((s, d) => s + d.prompt!.length, 0) / docs.length)} chars, ${plantedSource.size} planted near-duplicates, batches of ${BATCH}\n`,
);
// CPU time is the fairer single-core figure on a shared machine; wall time is shown beside it.
console.log(
  '| operator | wall ms | CPU ms | docs/s (CPU) | docs/s (wall) | speed vs baseline (CPU) | dropped |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, r, ratio] of rows)
  console.log(
    `| ${name} | ${r.ms.toFixed(0)} | ${r.cpuMs.toFixed(0)} | ${rate(r.cpuMs)} | ${rate(r.ms)} | ${ratio.toFixed(2)}× | ${r.dropped.length} |`,
  );
const cores = availableParallelism();
console.log(
  `| near_dedup, ${WORKERS} workers (signatures) + main thread (LSH) | ${(pooled.secs * 1000).toFixed(0)} | ${(pooled.cpuSecs * 1000).toFixed(0)} (all threads; ${Math.round((100 * pooled.cpuSecs) / (pooled.secs * cores))}% of ${cores} cores) | — | ${Math.round(docs.length / pooled.secs)} | — | ${pooled.dropped.length} |`,
);
console.log(
  `\nworkers: recall ${(pooledFound / plantedSource.size).toFixed(4)} (${pooledFound}/${plantedSource.size}); the same rows dropped, with the same reasons, as one thread: ${sameDrops ? 'yes' : 'NO'}`,
);
console.log(
  `planted pairs: recall ${(found / plantedSource.size).toFixed(4)} (${found}/${plantedSource.size}), precision ${(correct / Math.max(1, near.dropped.length)).toFixed(4)} (${correct}/${near.dropped.length})`,
);
console.log('\n| true Jaccard of planted pair | pairs | found | recall |');
console.log('|---|---:|---:|---:|');
for (const b of buckets)
  console.log(`| ${b.label} | ${b.n} | ${b.hit} | ${b.n ? (b.hit / b.n).toFixed(3) : '-'} |`);
