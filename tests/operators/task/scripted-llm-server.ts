import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the script answers to one request. */
export type ScriptedReply =
  | { contents: string[]; usage?: { prompt_tokens: number; completion_tokens: number }; delayMs?: number }
  | { status: number; raw: string }
  | { hang: true };

export interface ScriptedRequest {
  body: { model?: string; messages?: Array<{ content: string }>; n?: number; seed?: number } & Record<
    string,
    unknown
  >;
  /** The user message's content. */
  prompt: string;
}

/**
 * A local OpenAI-compatible chat server on 127.0.0.1 whose replies a test scripts per request
 * (the explorer's FakeServer answers fixed texts per URL behaviour; LLM operators need replies
 * that depend on the prompt, e.g. a judge's verdict per task). Every request is recorded.
 */
export class ScriptedLlmServer {
  readonly requests: ScriptedRequest[] = [];
  private server: Server | undefined;
  private readonly hanging = new Set<ServerResponse>();
  port = 0;
  /** Most requests the server held at once. */
  maxInFlight = 0;
  private inFlight = 0;

  private script: (req: ScriptedRequest, count: number) => ScriptedReply;

  constructor(script: (req: ScriptedRequest, count: number) => ScriptedReply) {
    this.script = script;
  }

  setScript(script: (req: ScriptedRequest, count: number) => ScriptedReply): void {
    this.script = script;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ScriptedRequest['body'];
    const seen: ScriptedRequest = { body, prompt: body.messages?.at(-1)?.content ?? '' };
    this.requests.push(seen);
    const reply = this.script(seen, this.requests.length);
    if ('hang' in reply) {
      this.hanging.add(res);
      return;
    }
    if ('raw' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.raw);
      return;
    }
    const choices = reply.contents.map((content, index) => ({
      index,
      message: { role: 'assistant', content },
      finish_reason: 'stop',
    }));
    if (reply.delayMs !== undefined) {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      await new Promise((r) => setTimeout(r, reply.delayMs));
      this.inFlight--;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-test',
        object: 'chat.completion',
        choices,
        usage: reply.usage ?? { prompt_tokens: 10, completion_tokens: 3 * choices.length },
      }),
    );
  }
}
