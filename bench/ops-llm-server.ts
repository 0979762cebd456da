// A scripted OpenAI-compatible chat server on 127.0.0.1 for `bench ops`: it answers at once, so the
// llm_* operators' time is Winnow's own (prompt building, the client, parsing, the row updates),
// not a model's. The reply depends on the request's `model`: `judge` gives a score, `rewrite` the
// last user message back, `difficulty` a worked answer; `n` choices when asked for several.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const reply = (model: string, user: string): string =>
  model === 'judge'
    ? '{"score": 7, "reason": "clear"}'
    : model === 'difficulty'
      ? 'So the answer is\n#### 42'
      : user;

export class OpsLlmServer {
  private server: Server | null = null;
  requests = 0;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      req.on('end', () => {
        this.requests++;
        const r = JSON.parse(body || '{}') as {
          model?: string;
          n?: number;
          messages?: { content: string }[];
        };
        const text = reply(r.model ?? '', r.messages?.at(-1)?.content ?? '');
        const n = Math.max(1, r.n ?? 1);
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            id: `ops-${this.requests}`,
            object: 'chat.completion',
            model: r.model,
            choices: Array.from({ length: n }, (_, index) => ({
              index,
              message: { role: 'assistant', content: text },
              finish_reason: 'stop',
            })),
            usage: { prompt_tokens: 10, completion_tokens: 5 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
