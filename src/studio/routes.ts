import { z } from 'zod';
import { parseBody } from '../serve/http-error.ts';
import { listEdits, undoEdit } from './edits-api.ts';
import { labelPreference, overrideReward, PreferenceBodySchema } from './experience-edits.ts';
import { groupDetail, listGroups } from './groups-api.ts';
import { rejectedGroups } from './rejected-api.ts';
import { countMatching, readPage } from './rows-query.ts';
import { compareRuns, listRuns } from './runs-api.ts';
import { sourceLines } from './source-files.ts';
import { openStudioTable, type StudioContext } from './studio-context.ts';
import { buildIndex, describeTable, listTables } from './tables-api.ts';
import { taskDetail } from './task-detail.ts';
import { editTask, reviewTask, TaskChangesSchema } from './task-edits.ts';

/** A Studio API route: a method, an exact path, and a handler of validated query/body. */
export interface StudioRoute {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  handle(ctx: StudioContext, req: { query: Record<string, unknown>; body: unknown }): Promise<unknown>;
}

const table = z.string().min(1);
const offset = z.coerce.number().int().min(0).max(1_000_000_000).default(0);
const limit = z.coerce.number().int().min(1).max(500).default(50);
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');

const PageQuery = z.strictObject({
  table,
  version: z.string().optional(),
  where: z.string().optional(),
  q: z.string().optional(),
  sort: z.string().optional(),
  desc: flag.optional(),
  offset,
  limit,
});

function get<S extends z.ZodType>(
  path: string,
  summary: string,
  schema: S,
  fn: (ctx: StudioContext, q: z.output<S>) => Promise<unknown>,
): StudioRoute {
  return { method: 'GET', path, summary, handle: (ctx, req) => fn(ctx, parseBody(schema, req.query)) };
}

function post<S extends z.ZodType>(
  path: string,
  summary: string,
  schema: S,
  fn: (ctx: StudioContext, b: z.output<S>) => Promise<unknown>,
): StudioRoute {
  return { method: 'POST', path, summary, handle: (ctx, req) => fn(ctx, parseBody(schema, req.body)) };
}

const reason = z.string().max(2000).default('');

export const STUDIO_ROUTES: readonly StudioRoute[] = [
  get(
    '/api/info',
    'who edits, read-only or not, the database and runs folders',
    z.strictObject({}),
    async (ctx) => ({
      db: ctx.dbDir,
      runs: ctx.runsDir,
      readOnly: ctx.readOnly,
      user: ctx.user,
    }),
  ),
  get(
    '/api/tables',
    'every table with rows, version, versions and tags',
    z.strictObject({}),
    async (ctx) => ({
      tables: await listTables(ctx),
    }),
  ),
  get('/api/table', 'one table: schema, versions, tags', z.strictObject({ table }), (ctx, q) =>
    describeTable(ctx, q.table),
  ),
  get(
    '/api/rows',
    'a page of rows: where=, q= (full text on prompt), sort=, offset=, limit=, version=',
    PageQuery,
    async (ctx, q) => readPage(await openStudioTable(ctx, q.table), q),
  ),
  get(
    '/api/count',
    'how many rows match where= and q=',
    PageQuery.pick({ table: true, version: true, where: true, q: true }),
    async (ctx, q) => ({ count: await countMatching(await openStudioTable(ctx, q.table), q) }),
  ),
  get(
    '/api/task',
    'a task: its features, edits, selection history and rollouts in each run',
    z.strictObject({ table, id: z.string().min(1), version: z.coerce.number().int().min(1).optional() }),
    (ctx, q) => taskDetail(ctx, q.table, q.id, q.version),
  ),
  get(
    '/api/edits',
    'the edit log (table=, id= to narrow it)',
    z.strictObject({ table: table.optional(), id: z.string().optional() }),
    async (ctx, q) => ({
      edits: await listEdits(ctx, {
        ...(q.table ? { table: q.table } : {}),
        ...(q.id ? { rowId: q.id } : {}),
      }),
    }),
  ),
  get(
    '/api/groups',
    'experience groups of a buffer table, a page at a time',
    z.strictObject({ table, where: z.string().optional(), offset, limit }),
    (ctx, q) => listGroups(ctx, q),
  ),
  get(
    '/api/group',
    'one group: prompt, responses with reward, advantage and tokens; why filtered',
    z.strictObject({ table, groupId: z.string().min(1) }),
    (ctx, q) => groupDetail(ctx, q),
  ),
  get(
    '/api/rejected',
    'rejected rows grouped by step and reason, with counts and examples',
    z.strictObject({ table: table.default('rejected'), run: z.string().optional() }),
    (ctx, q) => rejectedGroups(ctx, { table: q.table, runId: q.run }),
  ),
  get(
    '/api/source',
    'lines of an input file a run recorded, around a rejected row (no other file is read)',
    z.strictObject({
      file: z.string().min(1),
      table: table.default('rejected'),
      line: z.coerce.number().int().min(1),
      context: z.coerce.number().int().min(0).max(50).default(3),
    }),
    (ctx, q) => sourceLines(ctx, q),
  ),
  get('/api/runs', 'every run with status and headline metrics', z.strictObject({}), (ctx) => listRuns(ctx)),
  get(
    '/api/compare',
    'metric series over steps and the config diff of two or more runs (run=A&run=B)',
    z.strictObject({
      run: z
        .union([z.string().min(1), z.array(z.string().min(1))])
        .transform((r) => (Array.isArray(r) ? r : [r])),
    }),
    (ctx, q) => compareRuns(ctx, q.run),
  ),
  post(
    '/api/task/edit',
    'edit a task (prompt, answer, features, meta); needs the etag it was read at',
    z.strictObject({
      table,
      id: z.string().min(1),
      etag: z.string().min(1),
      changes: TaskChangesSchema,
      reason,
    }),
    (ctx, b) => editTask(ctx, b),
  ),
  post(
    '/api/task/review',
    'accept (meta.review) or reject (moved to rejected) a task',
    z.strictObject({
      table,
      id: z.string().min(1),
      etag: z.string().min(1),
      decision: z.enum(['accept', 'reject']),
      reason,
    }),
    (ctx, b) => reviewTask(ctx, b),
  ),
  post(
    '/api/experience/reward',
    "override an experience's reward; needs the etag (its reward as read)",
    z.strictObject({
      table,
      id: z.string().min(1),
      etag: z.string().min(1),
      reward: z.number().finite(),
      reason,
    }),
    (ctx, b) => overrideReward(ctx, b),
  ),
  post(
    '/api/preference',
    'mark the better of two responses of a group (a preference pair)',
    PreferenceBodySchema,
    (ctx, b) => labelPreference(ctx, b),
  ),
  post(
    '/api/index',
    'build an index: full text on prompt (default), or a scalar index on column= (filters then use it)',
    z.strictObject({ table, column: z.string().min(1).optional() }),
    (ctx, b) => buildIndex(ctx, b.table, b.column),
  ),
  post(
    '/api/undo',
    'undo an edit (a new version restoring the values before it)',
    z.strictObject({ editId: z.string().min(1) }),
    (ctx, b) => undoEdit(ctx, b.editId),
  ),
];
