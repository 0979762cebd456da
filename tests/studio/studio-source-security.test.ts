import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { RunTable } from '../../src/store/run-table.ts';
import type { StudioServer } from '../../src/studio/studio-server.ts';
import { tempDir } from '../helpers/tmp.ts';
import { makeStudioDb, startFixtureStudio } from './fixture.ts';

/** A raw GET on 127.0.0.1 sent exactly as written (fetch would normalise the path). */
function rawGet(base: string, path: string): Promise<{ status: number; text: string }> {
  const u = new URL(base);
  return new Promise((done, fail) => {
    const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', fail);
    req.end();
  });
}

/**
 * /api/source serves only the input files runs recorded, at their real path inside the folder
 * they were recorded in. The probes below are what a local process without a token would try;
 * each answers 403/404 and never carries the secret. One Studio for the whole file.
 */
describe('studio /api/source: only recorded inputs, no escape', () => {
  const root = tempDir('winnow-studio-source-');
  const project = join(root, 'project');
  const outside = join(root, 'outside');
  const SECRET = 'TOP-SECRET-LINE-42';
  let server: StudioServer;

  beforeAll(async () => {
    mkdirSync(project);
    mkdirSync(outside);
    mkdirSync(join(project, 'data'));
    const places = await makeStudioDb(project);
    writeFileSync(join(outside, 'secret.txt'), `${SECRET}\n`);
    writeFileSync(join(project, 'notes.txt'), `${SECRET} (unrecorded, under the start folder)\n`);
    symlinkSync(join(outside, 'secret.txt'), join(project, 'link-out.txt'));
    symlinkSync(join(outside, 'secret.txt'), join(project, 'data', 'linked.jsonl'));
    writeFileSync(join(project, 'data', 'train.jsonl'), '{"id":"a"}\n{"id":"b"}\n');
    // A task pipeline run records the files it read (absolute paths) in its summary.
    await (await RunTable.open(places.db)).put({
      runId: 'pipe-1',
      kind: 'tasks',
      name: 'pipe',
      configHash: 'h',
      seed: 1,
      status: 'completed',
      startedAt: 1,
      finishedAt: 2,
      tableVersion: 1,
      summary: JSON.stringify({ files: [join(project, 'data', 'train.jsonl')] }),
    });
    // A rejected row naming a file that is a link out of its folder: recorded, but never followed.
    const rejected = await RejectedStore.open(places.db);
    rejected.add([
      {
        step: 'read:jsonl',
        reason: 'line 1: not JSON',
        file: join(project, 'data', 'linked.jsonl'),
        row: 1,
        rowId: '',
        payload: 'x',
        runId: 'pipe-1',
      },
    ]);
    await rejected.flush();
    server = await startFixtureStudio(project, places);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  const source = (file: string) => `/api/source?file=${file}&line=1&context=3`;

  it('traversal, encoded and double-encoded traversal, absolute paths, links out, unrecorded files: 403/404, never the file', async () => {
    const probes = [
      source('../outside/secret.txt'),
      source(encodeURIComponent('../outside/secret.txt')),
      source('%2e%2e%2foutside%2fsecret.txt'),
      source('%252e%252e%252foutside%252fsecret.txt'),
      source('data%2f..%2f..%2foutside%2fsecret.txt'),
      source(encodeURIComponent(join(outside, 'secret.txt'))),
      source('%2fetc%2fpasswd'),
      source('link-out.txt'),
      source('notes.txt'),
      source(encodeURIComponent(join(project, 'notes.txt'))),
      source('db%2fruns.lance%2F_versions%2F1.manifest'),
    ];
    const answers = await Promise.all(probes.map((p) => rawGet(server.url, p)));
    const leaked = probes.filter((_, i) => /TOP-SECRET|root:/.test(answers[i]!.text));
    expect(leaked).toEqual([]);
    expect(answers.map((a, i) => [probes[i], a.status])).toEqual(probes.map((p) => [p, 404]));
    for (const a of answers)
      expect(JSON.parse(a.text)).toMatchObject({ code: 'unknown_file', field: 'file' });
  });

  it('a recorded file that is a symbolic link out of its folder: 403, not followed', async () => {
    const a = await rawGet(server.url, source(encodeURIComponent(join(project, 'data', 'linked.jsonl'))));
    expect(a.status).toBe(403);
    expect(a.text).not.toContain(SECRET);
    expect(JSON.parse(a.text)).toMatchObject({ code: 'path_outside_folder', field: 'file' });
  });

  it('recorded inputs still read: a rejected row’s file and a run’s recorded dataset file', async () => {
    const rejectedFile = await rawGet(server.url, '/api/source?file=input.jsonl&line=4&context=1');
    expect(rejectedFile.status).toBe(200);
    expect(JSON.parse(rejectedFile.text).lines).toEqual([
      { line: 3, text: expect.stringContaining('"id":"t02"') },
      { line: 4, text: '{"broken' },
    ]);
    const runFile = await rawGet(
      server.url,
      source(encodeURIComponent(join(project, 'data', 'train.jsonl'))),
    );
    expect(runFile.status).toBe(200);
    expect(JSON.parse(runFile.text).lines).toEqual([
      { line: 1, text: '{"id":"a"}' },
      { line: 2, text: '{"id":"b"}' },
    ]);
  });
});
