import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StudioServer } from '../../src/studio/studio-server.ts';
import { captureMain } from '../cli/capture.ts';
import { readParquetFile } from '../export/arrow-text.ts';
import { tempDir } from '../helpers/tmp.ts';
import { call, makeStudioDb, startFixtureStudio } from './fixture.ts';

type Row = Record<string, unknown>;

describe('studio: labelled preference pairs reach winnow export --format trl-dpo', () => {
  const dir = tempDir('winnow-studio-export-');
  let server: StudioServer;
  let db: string;
  beforeAll(async () => {
    const places = await makeStudioDb(dir);
    db = places.db;
    server = await startFixtureStudio(dir, places);
  }, 60_000);
  afterAll(() => server?.close());

  const pairs = async (name: string) => {
    const out = join(dir, `${name}.parquet`);
    const r = await captureMain([
      'export',
      '--db',
      db,
      '--table',
      'exps',
      '--format',
      'trl-dpo',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    return readParquetFile(out)
      .toArray()
      .map((x) => {
        const o = x.toJSON() as Row;
        return [o.group_id, o.chosen_id, o.rejected_id, o.margin];
      });
  };

  it('a tie the rewards cannot pair, and a pair the rewards got backwards, export as labelled; undo restores', async () => {
    expect(await pairs('before')).toEqual([
      ['g1', 'g1-0', 'g1-1', 1],
      ['g3', 'g3-0', 'g3-1', 0.25],
    ]);
    const tie = await call(server.url, '/api/preference', {
      body: { table: 'exps', groupId: 'g2', chosenId: 'g2-1', rejectedId: 'g2-0', reason: 'more precise' },
    });
    expect(tie.status).toBe(200);
    const flip = await call(server.url, '/api/preference', {
      body: { table: 'exps', groupId: 'g3', chosenId: 'g3-1', rejectedId: 'g3-0' },
    });
    expect(flip.status).toBe(200);
    expect(await pairs('labelled')).toEqual([
      ['g1', 'g1-0', 'g1-1', 1],
      ['g2', 'g2-1', 'g2-0', 0],
      ['g3', 'g3-1', 'g3-0', -0.25],
    ]);
    const group = await call(server.url, '/api/group?table=exps&groupId=g2');
    expect(group.body.preference).toMatchObject({
      chosenId: 'g2-1',
      rejectedId: 'g2-0',
      user: 'alice',
      reason: 'more precise',
    });
    const undo = await call(server.url, '/api/undo', { body: { editId: (flip.body.edit as Row).editId } });
    expect(undo.status).toBe(200);
    expect((await pairs('undone')).map((p) => p[0])).toEqual(['g1', 'g2', 'g3']);
    expect((await pairs('undone2'))[2]).toEqual(['g3', 'g3-0', 'g3-1', 0.25]);
  });

  it('every edit shows in winnow inspect (the studio_edits table)', async () => {
    const r = await captureMain([
      'inspect',
      '--db',
      db,
      '--table',
      'studio_edits',
      '--json',
      '--limit',
      '10',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { rows: number; sample: Row[] };
    expect(out.rows).toBe(3);
    expect(out.sample.map((s) => [s.kind, s.user, s.row_id])).toEqual([
      ['preference', 'alice', 'g2'],
      ['preference', 'alice', 'g3'],
      ['undo', 'alice', 'g3'],
    ]);
  });
});
