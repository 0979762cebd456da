import { readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-openai-run-');

/**
 * A local OpenAI-compatible completions server for arithmetic prompts ("37+48="). It answers
 * correctly on even-numbered samples, wrongly on odd ones, and misbehaves on purpose, keyed by the
 * prompt so every retry of a prompt fails the same way: prompts whose left operand is 7 mod 10 get
 * HTTP 500, 8 mod 10 time out, 9 mod 10 get malformed JSON.
 */
function startServer(): Promise<{ server: Server; url: string; counts: Record<string, number> }> {
  const counts: Record<string, number> = { ok: 0, error500: 0, timeout: 0, malformed: 0 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const r = JSON.parse(body) as { prompt: string; n?: number };
      const a = Number(/^\d+/.exec(r.prompt)?.[0] ?? 0);
      if (a % 10 === 7) {
        counts.error500!++;
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"overloaded"}');
        return;
      }
      if (a % 10 === 8) {
        counts.timeout!++;
        setTimeout(() => res.writeHead(200).end('{}'), 1500);
        return;
      }
      if (a % 10 === 9) {
        counts.malformed!++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [ {"text": ');
        return;
      }
      counts.ok!++;
      const answer = evaluate(r.prompt.replace(/=$/, ''));
      const choices = Array.from({ length: r.n ?? 1 }, (_, i) => ({
        index: i,
        text: String(i % 2 === 0 ? answer : answer + 1),
        finish_reason: 'stop',
      }));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ id: 'x', object: 'text_completion', choices }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, counts }),
    ),
  );
}

/** `3+4*2-1` with the usual precedence (the arithmetic task set uses + − ×). */
function evaluate(expr: string): number {
  return expr
    .split(/(?=[+-])/)
    .map((term) => {
      const sign = term.startsWith('-') ? -1 : 1;
      return (
        sign *
        term
          .replace(/^[+-]/, '')
          .split('*')
          .reduce((p, x) => p * Number(x), 1)
      );
    })
    .reduce((s, x) => s + x, 0);
}

describe('an RFT run against an OpenAI-compatible server that times out, fails and returns garbage', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => new Promise<void>((r) => srv.server.close(() => r())));

  it('finishes, records every failed group with its reason, and exports the good groups for an external trainer', async () => {
    const config = smallRftConfig('openai', {
      explorer: {
        model: {
          type: 'openai',
          params: {
            model: 'arith',
            baseUrl: srv.url,
            endpoint: 'completions',
            timeoutMs: 400,
            retries: 1,
            backoffMs: 5,
            logprobs: false,
          },
        },
        reward: 'math',
        repeat: 4,
        batchTasks: 16,
        concurrency: 4,
        timeoutMs: 5000,
        retries: 0,
      },
      heldout: undefined,
      trainer: { type: 'export', params: { dir: join(dir, 'export') } },
      lifecycle: { mode: 'sync', steps: 3, checkpointEvery: 3 },
    });
    const db = join(dir, 'db');
    const report = await runRft(config, { baseDir: REPO_ROOT, dbDir: db, runDir: join(dir, 'run') });
    expect(report.steps).toBe(3);

    const rejected = await (await RejectedStore.open(db)).read();
    const failures = rejected.filter((r) => r.step.startsWith('rollout:'));
    expect(failures.length).toBe(report.counters.failedGroups);
    expect(failures.length).toBeGreaterThan(0);
    // Every failed group names its cause: a server error, a timeout or a malformed body.
    const kinds = new Set(
      failures.map((f) =>
        /500/.test(f.reason)
          ? 'http'
          : /time/i.test(f.reason)
            ? 'timeout'
            : /malformed|JSON|shape/i.test(f.reason)
              ? 'malformed'
              : 'other',
      ),
    );
    expect([...kinds].sort()).toEqual(['http', 'malformed', 'timeout']);
    expect(srv.counts.error500).toBeGreaterThan(0);
    expect(srv.counts.timeout).toBeGreaterThan(0);
    expect(srv.counts.malformed).toBeGreaterThan(0);

    // The good groups (half right, half wrong: mixed rewards) were exported batch by batch.
    const total = report.history.reduce((a, h) => a + h.rollouts, 0);
    expect(total).toBe(3 * 16 * 4 - failures.length * 4);
    expect(readdirSync(join(dir, 'export')).filter((f) => f.endsWith('.parquet'))).toHaveLength(3);
    for (const h of report.history) expect(h.meanReward).toBeCloseTo(0.5, 5);
  });
});
