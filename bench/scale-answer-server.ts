import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OpenAI-compatible completions server for the arithmetic prompts ("37+48="), with a fixed
 * latency per request. Whether sample i is right is a hash of (prompt, seed, i), so groups get
 * mixed rewards and the answer to a request never depends on which process sent it or when.
 */
export class AnswerServer {
  requests = 0;
  inFlight = 0;
  maxInFlight = 0;
  /** The model name each request carried, in arrival order (weight sync routes by it). */
  readonly models: string[] = [];
  url = '';
  private server: Server | undefined;
  private readonly latencyMs: number;

  constructor(latencyMs = 0) {
    this.latencyMs = latencyMs;
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        this.requests++;
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const answer = () => {
          this.inFlight--;
          const r = JSON.parse(body) as { prompt: string; n?: number; seed?: number; model?: string };
          this.models.push(String(r.model));
          const right = String(evaluate(r.prompt.replace(/=$/, '')));
          const choices = Array.from({ length: r.n ?? 1 }, (_, i) => {
            const h = createHash('sha1')
              .update(`${r.prompt}|${r.seed ?? ''}|${i}`)
              .digest()[0]!;
            return { index: i, text: h % 3 === 0 ? `${right}1` : right, finish_reason: 'stop' };
          });
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ id: 'x', object: 'text_completion', choices }));
        };
        if (this.latencyMs > 0) setTimeout(answer, this.latencyMs);
        else answer();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** `3+4*2-1` with the usual precedence (the arithmetic task set uses + − ×). */
function evaluate(expr: string): number {
  let sum = 0;
  for (const term of expr.split(/(?=[+-])/)) {
    const sign = term.startsWith('-') ? -1 : 1;
    sum +=
      sign *
      term
        .replace(/^[+-]/, '')
        .split('*')
        .reduce((p, x) => p * Number(x), 1);
  }
  return sum;
}
