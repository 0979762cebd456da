import { resolve } from 'node:path';
import { type JsonValue, TaskSchema } from '../core/task.ts';
import { UsageError } from '../core/usage-error.ts';
import { createReward } from '../explorer/rewards/registry.ts';
import type { RewardFn, RewardResult } from '../explorer/rewards/reward-fn.ts';
import { engineError, readableDbDir } from '../inspect/table-target.ts';
import { columnsOf, compilePath, MISSING } from '../io/field-path.ts';
import { jsonSafe, writeJsonl } from '../io/jsonl-writer.ts';
import { writeParquet } from '../io/parquet-writer.ts';
import { sharedJudgePool } from '../verify/judge-pool.ts';
import { type OptionValues, parseCommand } from './command-spec.ts';
import { fileRows, jsonFieldPath, lanceRows, type RowSourceInfo } from './judge-rows.ts';
import { runJudgeSource } from './judge-run.ts';
import { Progress } from './progress.ts';
import { JUDGE_SPEC } from './specs/judge.ts';

type Row = Record<string, unknown>;

/** Counts for the summary line, by the reason each verdict gave. */
class Tally {
  rows = 0;
  sum = 0;
  readonly reasons = new Map<string, number>();
  add(reward: number, reason: string | undefined): void {
    this.rows++;
    this.sum += reward;
    if (reason !== undefined) this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
  }
  count(reason: string): number {
    return this.reasons.get(reason) ?? 0;
  }
  line(unreadable: number): string {
    const mean = this.rows > 0 ? (this.sum / this.rows).toFixed(4) : 'n/a';
    const others = [...this.reasons]
      .filter(([r]) => !['equal', 'not_equal', 'timeout', 'unparseable'].includes(r))
      .map(([r, n]) => `${r} ${n}`);
    return [
      `judged ${this.rows} rows`,
      `mean reward ${mean}`,
      `timeouts ${this.count('timeout')}`,
      `unparseable ${this.count('unparseable')}`,
      ...others,
      ...(unreadable > 0 ? [`unreadable input rows ${unreadable}`] : []),
    ].join(', ');
  }
}

function parseParams(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--params is not valid JSON (${(err as Error).message})`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new UsageError('--params must be a JSON object, e.g. \'{"tolerance":1e-4}\'');
  return v as Record<string, unknown>;
}

/** The input row with its old reward/info set aside, then the new verdict. */
function scoredRow(row: Row, reward: number, info: Record<string, JsonValue>): Row {
  const { reward: before, info: infoBefore, ...rest } = row;
  return {
    ...rest,
    ...(before !== undefined ? { reward_before: before } : {}),
    ...(infoBefore !== undefined ? { info_before: infoBefore } : {}),
    reward,
    info,
  };
}

interface Fields {
  response: (r: Row) => unknown;
  answer: (r: Row) => unknown;
  responseName: string;
}

async function judgeRow(
  row: Row,
  n: number,
  fn: RewardFn,
  f: Fields,
  src: RowSourceInfo,
): Promise<RewardResult> {
  const response = f.response(row);
  if (response === MISSING || typeof response !== 'string')
    return {
      reward: 0,
      info: {
        reason: 'missing_field',
        detail:
          response === MISSING
            ? `no '${f.responseName}' field (${columnsOf(row)})`
            : `'${f.responseName}' is not text`,
      },
    };
  let answer = f.answer(row);
  const taskId = row.task_id ?? row.taskId;
  if ((answer === MISSING || answer === null) && typeof taskId === 'string')
    answer = src.taskAnswer?.(taskId) ?? MISSING;
  const task = TaskSchema.safeParse({
    id: String(row.id ?? taskId ?? `row-${n}`) || `row-${n}`,
    taskset: typeof row.taskset === 'string' && row.taskset !== '' ? row.taskset : 'judge',
    // A reward sees a task; rows without a prompt (most rollout files) get a placeholder one.
    prompt: typeof row.prompt === 'string' && row.prompt !== '' ? row.prompt : '(not given)',
    ...(answer !== MISSING && answer !== null && answer !== undefined ? { answer: String(answer) } : {}),
  });
  if (!task.success)
    return { reward: 0, info: { reason: 'bad_row', detail: task.error.issues[0]?.message ?? '' } };
  try {
    const r = await fn({ response, task: task.data });
    if (!Number.isFinite(r.reward)) {
      // NaN: the reward could not judge this row (typically: no reference answer). Scored 0, with why.
      const reason = typeof r.info?.reason === 'string' ? r.info.reason : 'no_verdict';
      return {
        reward: 0,
        info: { ...r.info, reason, ...(answer === MISSING ? { missing_field: 'answer' } : {}) },
      };
    }
    return r;
  } catch (err) {
    return {
      reward: 0,
      info: { reason: 'reward_error', detail: (err as Error).message.split('\n')[0]!.slice(0, 200) },
    };
  }
}

/** Where the rows come from, and the reward to use when --reward is not given. */
async function rowSource(v: JudgeValues): Promise<{ src: RowSourceInfo; reward?: unknown; baseDir: string }> {
  try {
    if (v.run !== undefined) {
      const run = await runJudgeSource(readableDbDir(v.db), v.run, v.table);
      return { src: run.rows, reward: run.reward, baseDir: run.baseDir };
    }
    const src =
      v.input !== undefined ? fileRows(resolve(v.input)) : await lanceRows(readableDbDir(v.db), v.table!);
    return { src, baseDir: process.cwd() };
  } catch (err) {
    throw engineError(err, v.run !== undefined ? `judge of run '${v.run}'` : `judge of table '${v.table}'`);
  }
}

type JudgeValues = OptionValues<typeof JUDGE_SPEC.options>;

function checkUsage(v: JudgeValues): void {
  if (v.reward === undefined && v.run === undefined)
    throw new UsageError(
      "judge needs --reward NAME (e.g. --reward math), or --run ID for the run's own reward",
    );
  if (v.run !== undefined && v.input !== undefined)
    throw new UsageError(
      "--run and --input cannot be used together: --run re-scores the run's experiences, --input a file",
    );
  if (v.run === undefined && (v.input === undefined) === (v.table === undefined))
    throw new UsageError('judge needs exactly one of --input FILE, --table T or --run ID');
  if (v.db !== undefined && v.table === undefined && v.run === undefined)
    throw new UsageError('--db only applies with --table or --run');
}

export async function judgeCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(JUDGE_SPEC, argv);
  if (!parsed) return 0;
  const v = parsed.values;
  checkUsage(v);
  const out = v.output === undefined ? null : resolve(v.output);
  const outType =
    out === null
      ? 'stdout'
      : /\.parquet$/i.test(out)
        ? 'parquet'
        : /\.(jsonl|ndjson)$/i.test(out)
          ? 'jsonl'
          : null;
  if (outType === null) throw new UsageError(`--output must end in .jsonl or .parquet, got ${v.output}`);
  if (out !== null && v.input !== undefined && out === resolve(v.input))
    throw new UsageError('--output is the --input file: judge never overwrites its input; name another file');
  const params = parseParams(v.params);
  // Every math judgement of this process (the dapo reward's too) runs on the shared pool.
  if (v.workers !== undefined) sharedJudgePool(v.workers);
  const { src, reward, baseDir } = await rowSource(v);
  const rewardConfig = v.reward !== undefined ? (params ? { type: v.reward, params } : v.reward) : reward;
  const fn = await createReward(rewardConfig, {
    baseDir,
    path: v.reward !== undefined ? '--reward' : "the run's reward",
  });
  const fields: Fields = {
    response: compilePath(v['response-field']),
    answer: jsonFieldPath(v['answer-field']),
    responseName: v['response-field'],
  };
  const tally = new Tally();
  const progress = new Progress({ enabled: !v.quiet });
  let unreadable = 0;
  async function* scored(): AsyncGenerator<Row[]> {
    for await (const batch of src.batches) {
      for (const u of batch.unreadable) {
        unreadable++;
        process.stderr.write(`warning: input row ${u.row} skipped: ${u.reason}\n`);
      }
      // A batch's judgements are asked for at once (the math reward spreads them over its workers)
      // and taken back in input order.
      const first = tally.rows;
      const results = await Promise.all(
        batch.rows.map((row, i) => judgeRow(row, first + i, fn, fields, src)),
      );
      const rows: Row[] = [];
      results.forEach((r, i) => {
        const info = (r.info ?? {}) as Record<string, JsonValue>;
        tally.add(r.reward, typeof info.reason === 'string' ? info.reason : undefined);
        rows.push(scoredRow(batch.rows[i]!, r.reward, info));
      });
      if (tally.rows >= 64)
        progress.update(
          `judged ${tally.rows.toLocaleString('en-US')} rows`,
          src.total ? tally.rows / src.total : undefined,
        );
      yield rows;
    }
  }
  if (outType === 'stdout') {
    for await (const rows of scored())
      for (const r of rows) process.stdout.write(`${JSON.stringify(r, jsonSafe)}\n`);
  } else if (outType === 'jsonl') await writeJsonl(out!, scored());
  else await writeParquet(out!, scored());
  progress.done();
  process.stderr.write(`${tally.line(unreadable)}${out ? `; wrote ${out}` : ''}\n`);
  return 0;
}
