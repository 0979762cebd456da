// The synthetic experiences of bench/buffer and bench/loop (seeded, arithmetic-run shaped).
import type { Experience } from '../src/core/experience.ts';
import { Rng } from '../src/core/rng.ts';

export const TOKENS = 64;
const PROMPT_TOKENS = 16;
const GROUP = 8;

/** Experience `i` of a synthetic arithmetic run: 16 prompt + 48 response tokens, groups of 8. */
function experience(i: number, rng: Rng): Experience {
  const a = rng.int(1000);
  const b = rng.int(1000);
  const tokens = new Array<number>(TOKENS);
  const logprobs = new Array<number>(TOKENS);
  const mask = new Array<number>(TOKENS);
  for (let j = 0; j < TOKENS; j++) {
    tokens[j] = rng.int(32_000);
    logprobs[j] = j < PROMPT_TOKENS ? 0 : -rng.float() * 4;
    mask[j] = j < PROMPT_TOKENS ? 0 : 1;
  }
  const version = Math.floor(i / 2048);
  return {
    id: `exp-${i}`,
    taskId: `task-${Math.floor(i / GROUP) % 50_000}`,
    taskset: 'arith',
    groupId: `g${version}-${Math.floor(i / GROUP)}`,
    runIndex: i % GROUP,
    stepIndex: 0,
    modelVersion: version,
    exploreStep: version,
    prompt: `What is ${a} + ${b}?`,
    response: String(a + b + (rng.float() < 0.3 ? 1 : 0)),
    tokens,
    logprobs,
    actionMask: mask,
    promptLength: PROMPT_TOKENS,
    reward: rng.float() < 0.7 ? 1 : 0,
    advantage: rng.normal(),
    truncated: false,
    info: {},
    useCount: 0,
    priority: 0,
    createdAt: 1_700_000_000_000 + i,
    expert: false,
  };
}

export function batch(from: number, count: number, seed: number): Experience[] {
  const rng = new Rng(`${seed}:${from}`);
  return Array.from({ length: count }, (_, k) => experience(from + k, rng));
}
