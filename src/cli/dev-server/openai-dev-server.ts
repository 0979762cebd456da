import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the fake server saw it. */
export interface SeenRequest {
  behaviour: string;
  run: string;
  path: string;
  body: Record<string, unknown>;
  authorization: string | undefined;
}

/** One LoRA load or unload as the fake server saw it (vLLM's runtime LoRA endpoints). */
export interface LoraEvent {
  run: string;
  op: 'load' | 'unload';
  name: string;
  path: string | undefined;
  /** HTTP status the server answered with. */
  status: number;
}

/** One scripted chat answer (behaviour `script`): text and/or tool calls, with its token ids and logprobs. */
export interface ScriptedTurn {
  content?: string | null;
  toolCalls?: { id: string; name: string; arguments: string }[];
  tokenIds: number[];
  logprobs: number[];
}

/**
 * A local OpenAI-compatible server (`winnow dev-server`, and the tests' model server). Requests
 * under `/v1/…` get the server's default behaviour (`lora`, or `script` when answers are
 * scripted) for run `default`; requests under `/<behaviour>/<run>/v1/…` choose one of the
 * behaviours below, `run` keying per-test counters.
 *
 * Behaviour `lora` acts like vLLM with runtime LoRA updating: `/v1/load_lora_adapter`
 * `{ lora_name, lora_path }` and `/v1/unload_lora_adapter` `{ lora_name }` (400 on a duplicate
 * load, 404 on an unknown unload), and a completion request naming an adapter that is not loaded
 * gets 404. Its samples answer '1' (even index) or '2' (odd), and the last token id of each
 * sample is 5000 + the version in the adapter name (`…-v3` → 5003; the base model → 5000), so a
 * test can tell which weights produced every experience.
 */
export class OpenAiDevServer {
  readonly requests: SeenRequest[] = [];
  readonly loraEvents: LoraEvent[] = [];
  /** Loaded adapters per run: name → path. */
  readonly adapters = new Map<string, Map<string, string>>();
  /** Behaviour `script`: per run, the answers in request order (see `script`). */
  private readonly scripts = new Map<string, ScriptedTurn[]>();
  private server: Server | undefined;
  private readonly counts = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private inFlight = 0;
  maxInFlight = 0;
  port = 0;
  host = '127.0.0.1';
  /** The behaviour of requests under `/v1/…` (run `default`). */
  defaultBehaviour: 'lora' | 'script' = 'lora';
  /** Told of every LoRA load and unload (the CLI prints them). */
  onLora: ((e: LoraEvent) => void) | undefined;

  /** Listen on `host:port` (default 127.0.0.1 and a free port). */
  async start(opts: { host?: string; port?: number } = {}): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    this.port = address.port;
    this.host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  }

  /** The base URL of the default behaviour: `http://HOST:PORT/v1`. */
  get baseUrl(): string {
    return `http://${this.host}:${this.port}/v1`;
  }

  async stop(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  url(behaviour: string, run: string): string {
    return `http://127.0.0.1:${this.port}/${behaviour}/${run}/v1`;
  }

  /**
   * Script the chat answers of `run` under behaviour `script`: the k-th request gets `turns[k]`
   * (tool calls in `message.tool_calls`, finish_reason `tool_calls`). Prompt token ids are one
   * stable rendering of the messages: an assistant message is the ids this server sent for it,
   * any other message is [role id (system 1, user 2, tool 3), 1000 + its length]; so each prompt
   * extends the previous one, as a real chat template does.
   */
  script(run: string, turns: ScriptedTurn[]): void {
    this.scripts.set(run, turns);
  }

  seen(behaviour: string, run: string): SeenRequest[] {
    return this.requests.filter((r) => r.behaviour === behaviour && r.run === run);
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = (req.url ?? '').split('?')[0]!;
    const parts = url.startsWith('/v1/')
      ? ['', this.defaultBehaviour, 'default', ...url.slice(1).split('/')]
      : url.split('/');
    const [, behaviour = '', run = '', ...rest] = parts;
    const path = `/${rest.join('/')}`;
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {}
    this.requests.push({ behaviour, run, path, body, authorization: req.headers.authorization });
    const key = `${behaviour}/${run}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);

    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(value));
    };
    const ok = () => json(200, completion(path, body, behaviour === 'ignore-n' ? 1 : Number(body.n ?? 1)));

    switch (behaviour) {
      case 'lora':
        return this.lora(run, path, body, json);
      case 'script':
        return this.scripted(run, count, body, json);
      case 'ok':
      case 'ignore-n':
        return ok();
      case 'slow-ok': {
        this.inFlight++;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        return this.later(20, () => {
          this.inFlight--;
          ok();
        });
      }
      case 'fail-seed-1':
        // One of several single-sample requests fails for good; the others would hang.
        return body.seed === 1 ? json(400, { error: { message: 'bad seed' } }) : this.later(30_000, ok);
      case 'hang':
        // Sleeps far past any client timeout; the client gives up first.
        return this.later(30_000, ok);
      case 'fail-once':
        return count === 1 ? json(500, { error: { message: 'engine overloaded' } }) : ok();
      case 'always-500':
        return json(503, { error: { message: 'unavailable' } });
      case 'rate-limit-once':
        return count === 1 ? json(429, { error: { message: 'slow down' } }, { 'retry-after': '0' }) : ok();
      case 'bad-request':
        return json(400, { error: { message: 'max_tokens is too large' } });
      case 'echo-auth':
        return json(401, { error: { message: `bad key ${req.headers.authorization}` } });
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"choices": [{"message": ');
      case 'no-choices':
        return json(200, { id: 'x', object: 'chat.completion', choices: [] });
      case 'missing-choices':
        return json(200, { id: 'x', object: 'chat.completion' });
      case 'bad-shape':
        return json(200, { choices: [{ index: 0, message: 'hello' }] });
      case 'close':
        return void req.socket.destroy();
      case 'prompt-logprobs':
        return json(200, promptLogprobs(body));
      default:
        return json(404, { error: { message: `unknown behaviour ${behaviour}` } });
    }
  }

  /** `script` behaviour: the run's scripted answers in request order (404 past the end). */
  private scripted(
    run: string,
    count: number,
    body: Record<string, unknown>,
    json: (status: number, value: unknown) => void,
  ): void {
    const turns = this.scripts.get(run) ?? [];
    const turn = turns[count - 1];
    if (!turn) {
      json(404, { error: { message: `script of run '${run}' has no answer ${count}` } });
      return;
    }
    const roleId: Record<string, number> = { system: 1, user: 2, tool: 3 };
    const messages = (Array.isArray(body.messages) ? body.messages : []) as {
      role: string;
      content?: string;
    }[];
    const prompt: number[] = [];
    let assistant = 0;
    for (const m of messages) {
      if (m.role === 'assistant') prompt.push(...(turns[assistant++]?.tokenIds ?? []));
      else prompt.push(roleId[m.role] ?? 9, 1000 + String(m.content ?? '').length);
    }
    const calls = turn.toolCalls ?? [];
    json(200, {
      id: `script-${count}`,
      object: 'chat.completion',
      prompt_token_ids: prompt,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: turn.content ?? null,
            ...(calls.length > 0
              ? {
                  tool_calls: calls.map((c) => ({
                    id: c.id,
                    type: 'function',
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
          logprobs: { content: turn.logprobs.map((lp, k) => ({ token: `t${k}`, logprob: lp })) },
          token_ids: turn.tokenIds,
        },
      ],
    });
  }

  /** `lora` behaviour: vLLM's runtime LoRA endpoints plus completions that say which adapter served them. */
  private lora(
    run: string,
    path: string,
    body: Record<string, unknown>,
    json: (status: number, value: unknown) => void,
  ): void {
    const loaded = this.adapters.get(run) ?? new Map<string, string>();
    this.adapters.set(run, loaded);
    const name = typeof body.lora_name === 'string' ? body.lora_name : '';
    const event = (op: LoraEvent['op'], status: number, lpath?: string) => {
      const e: LoraEvent = { run, op, name, path: lpath, status };
      this.loraEvents.push(e);
      this.onLora?.(e);
    };
    if (path === '/v1/models') {
      const ids = ['base-model', ...loaded.keys()];
      json(200, {
        object: 'list',
        data: ids.map((id) => ({ id, object: 'model', owned_by: 'winnow-dev-server' })),
      });
      return;
    }
    if (path === '/v1/load_lora_adapter') {
      const lpath = typeof body.lora_path === 'string' ? body.lora_path : undefined;
      if (!name || !lpath) {
        event('load', 400, lpath);
        json(400, { error: { message: 'lora_name and lora_path are required' } });
        return;
      }
      if (loaded.has(name)) {
        event('load', 400, lpath);
        json(400, { error: { message: `The lora adapter '${name}' has already been loaded.` } });
        return;
      }
      loaded.set(name, lpath);
      event('load', 200, lpath);
      json(200, `Success: LoRA adapter '${name}' added successfully.`);
      return;
    }
    if (path === '/v1/unload_lora_adapter') {
      if (!loaded.delete(name)) {
        event('unload', 404);
        json(404, { error: { message: `The lora adapter '${name}' cannot be found.` } });
        return;
      }
      event('unload', 200);
      json(200, `Success: LoRA adapter '${name}' removed successfully.`);
      return;
    }
    const model = String(body.model ?? '');
    const adapter = /-v(\d+)$/.exec(model);
    if (adapter && !loaded.has(model)) {
      json(404, { error: { message: `The model \`${model}\` does not exist.` } });
      return;
    }
    const version = adapter ? Number(adapter[1]) : 0;
    json(
      200,
      completion(path, body, Number(body.n ?? 1), {
        text: (i) => (i % 2 === 0 ? '1' : '2'),
        tokenIds: (i) => [100 + i, 5000 + version],
      }),
    );
  }
}

/** An OK body with `n` choices, logprobs and (when asked as vLLM does) token ids. */
function completion(
  path: string,
  body: Record<string, unknown>,
  n: number,
  opts: { text?: (i: number) => string; tokenIds?: (i: number) => number[] } = {},
): unknown {
  const withIds = body.return_token_ids === true;
  const seed = body.seed ?? 'none';
  const choices = Array.from({ length: n }, (_, i) => {
    const text = opts.text ? opts.text(i) : `sample ${i} seed ${seed}`;
    const finish = i === n - 1 && n > 1 ? 'length' : 'stop';
    const lp = [-0.5, -0.25 - i];
    if (path.endsWith('/chat/completions'))
      return {
        index: i,
        message: { role: 'assistant', content: text },
        finish_reason: finish,
        logprobs: body.logprobs
          ? {
              content: [
                { token: 'sam', logprob: lp[0] },
                { token: 'ple', logprob: lp[1] },
              ],
            }
          : null,
        ...(withIds ? { token_ids: opts.tokenIds ? opts.tokenIds(i) : [100 + i, 200 + i] } : {}),
      };
    return {
      index: i,
      text,
      finish_reason: finish,
      logprobs: body.logprobs
        ? { tokens: [`token_id:${10 + i}`, `token_id:${20 + i}`], token_logprobs: lp }
        : null,
    };
  });
  // Choices deliberately out of order: the client must sort by index.
  return { id: 'cmpl-1', choices: choices.reverse(), ...(withIds ? { prompt_token_ids: [1, 2, 3] } : {}) };
}

/**
 * `prompt-logprobs` behaviour: vLLM's answer to `/v1/completions` with `echo: true, logprobs: 1`.
 * Each prompt character is one token; its logprob is −1 (ASCII) or −2 (any other character), the
 * first is null (no context), and with `max_tokens: 1` one generated token `!` (logprob −9) follows,
 * whose text_offset is the prompt's length — so a test can check it is cut off.
 */
function promptLogprobs(body: Record<string, unknown>): unknown {
  const prompts = Array.isArray(body.prompt) ? body.prompt.map(String) : [String(body.prompt ?? '')];
  const extra = Number(body.max_tokens ?? 16) > 0;
  const choices = prompts.map((prompt, index) => {
    const chars = [...prompt];
    const tokens = extra ? [...chars, '!'] : chars;
    return {
      index,
      text: extra ? `${prompt}!` : prompt,
      finish_reason: 'length',
      logprobs: {
        tokens,
        token_logprobs: tokens.map((c, i) =>
          i === 0 ? null : i >= chars.length ? -9 : c.charCodeAt(0) < 128 ? -1 : -2,
        ),
        text_offset: tokens.map((_, i) => i),
        top_logprobs: null,
      },
    };
  });
  return { id: 'cmpl-echo', object: 'text_completion', choices: choices.reverse() };
}
