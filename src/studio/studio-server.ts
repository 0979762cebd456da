import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { engineError } from '../inspect/table-target.ts';
import { isLoopback } from '../serve/bind-policy.ts';
import { HttpError } from '../serve/http-error.ts';
import { STUDIO_ROUTES } from './routes.ts';
import { readStatic, staticFile } from './static-files.ts';
import type { StudioContext } from './studio-context.ts';

export interface StudioServerOptions extends StudioContext {
  host: string;
  port: number;
  /** Required on every request when set (Authorization: Bearer, or the cookie `/?token=` sets). */
  token?: string | undefined;
  maxBodyBytes?: number;
  log?: (line: string) => void;
}

export interface StudioServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const COOKIE = 'winnow_studio_token';
const digest = (s: string) => createHash('sha256').update(s).digest();
const sameToken = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === COOKIE) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

function checkAccess(req: IncomingMessage, token: string | undefined): void {
  if (token === undefined) {
    // Bound to loopback without a token: refuse requests addressed to another name (DNS rebinding).
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (host !== '' && !isLoopback(host))
      throw new HttpError({
        status: 403,
        code: 'forbidden_host',
        message: `requests addressed to '${host}' are refused`,
        hint: 'without a token the Studio answers only 127.0.0.1 or localhost',
      });
    return;
  }
  const m = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''));
  const given = m?.[1] ?? cookieToken(req);
  if (given === undefined)
    throw new HttpError({
      status: 401,
      code: 'missing_token',
      field: 'token',
      message: 'missing token',
      hint: 'open the URL winnow studio printed (it carries ?token=), or send Authorization: Bearer <token>',
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  if (!sameToken(given, token))
    throw new HttpError({
      status: 401,
      code: 'bad_token',
      field: 'token',
      message: 'bad token',
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
}

async function readJson(req: IncomingMessage, max: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max)
      throw new HttpError({ status: 413, code: 'too_large', message: `request body over ${max} bytes` });
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  // JSON only: a cross-site form post (text/plain) cannot reach a handler without a CORS preflight.
  if (!/^application\/json\b/i.test(String(req.headers['content-type'] ?? '')))
    throw new HttpError({
      status: 415,
      code: 'unsupported_media_type',
      message: 'send the body as application/json',
    });
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new HttpError({
      status: 400,
      code: 'invalid_json',
      field: '<body>',
      message: `body is not JSON: ${(err as Error).message}`,
    });
  }
}

/**
 * A request path with a `..` segment (plain or percent-encoded) is refused before anything else:
 * URL parsing would quietly resolve it, and nothing the Studio serves is named that way.
 */
function refuseClimbing(rawUrl: string): void {
  const path = rawUrl.split('?')[0] ?? '';
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw new HttpError({
      status: 400,
      code: 'invalid_request',
      field: 'path',
      message: `bad URL encoding in ${path}`,
    });
  }
  if (decoded.split(/[\\/]/).includes('..'))
    throw new HttpError({
      status: 400,
      code: 'path_outside_root',
      field: 'path',
      message: `'${path}' climbs out of the Studio with '..'`,
      hint: 'pages are / and /static/…; data comes from /api/…',
    });
}

/** Query parameters as an object; a repeated key (`run=a&run=b`) becomes an array. */
function queryObject(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length > 1 ? all : all[0];
  }
  return out;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

/** A refusal as the client sees it: one line, what is wrong (`field`) and a hint. Never a stack. */
function errorBody(err: HttpError) {
  return {
    error: err.message,
    code: err.code,
    ...(err.field !== undefined ? { field: err.field } : {}),
    ...(err.hint !== undefined ? { hint: err.hint } : {}),
  };
}

async function handle(o: StudioServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  // `/?token=T` trades the printed URL's token for a same-site cookie, then drops it from the address bar.
  const offered = url.searchParams.get('token');
  if (o.token !== undefined && url.pathname === '/' && offered !== null && sameToken(offered, o.token)) {
    res.writeHead(303, {
      Location: '/',
      'Set-Cookie': `${COOKIE}=${encodeURIComponent(offered)}; HttpOnly; SameSite=Strict; Path=/`,
    });
    res.end();
    return;
  }
  checkAccess(req, o.token);
  refuseClimbing(req.url ?? '/');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  if (path.startsWith('/api/')) {
    const candidates = STUDIO_ROUTES.filter((r) => r.path === path);
    if (candidates.length === 0)
      throw new HttpError({
        status: 404,
        code: 'not_found',
        message: `no route ${path}`,
        hint: `routes: ${STUDIO_ROUTES.map((r) => `${r.method} ${r.path}`).join(', ')}`,
      });
    const route = candidates.find((r) => r.method === req.method);
    if (!route) {
      const allow = candidates.map((r) => r.method).join(', ');
      throw new HttpError({
        status: 405,
        code: 'method_not_allowed',
        message: `${path} does not accept ${req.method}`,
        headers: { Allow: allow },
      });
    }
    const body = req.method === 'POST' ? await readJson(req, o.maxBodyBytes ?? 1024 * 1024) : {};
    sendJson(res, 200, await route.handle(o, { query: queryObject(url.searchParams), body }));
    return;
  }
  if (req.method !== 'GET')
    throw new HttpError({ status: 405, code: 'method_not_allowed', message: `${path} accepts GET` });
  const file = staticFile(url.pathname);
  const found = file ? await readStatic(file) : null;
  if (!found)
    throw new HttpError({
      status: 404,
      code: 'not_found',
      field: 'path',
      message: `no page ${url.pathname}`,
    });
  res.writeHead(200, { 'Content-Type': found.type, 'Cache-Control': 'no-cache' });
  res.end(found.bytes);
}

/** Start the Studio on `host:port` (0: a free port). Resolves once it listens. */
export async function startStudioServer(o: StudioServerOptions): Promise<StudioServer> {
  const log = o.log ?? (() => undefined);
  const server: Server = createServer((req, res) => {
    handle(o, req, res).catch((err: unknown) => {
      if (err instanceof HttpError) return sendJson(res, err.status, errorBody(err), err.headers);
      const one = engineError(err, `${req.method} ${req.url?.split('?')[0]}`);
      log(`studio: ${one instanceof Error ? one.message : String(one)}`);
      sendJson(res, 500, { error: one instanceof Error ? one.message : String(one), code: 'internal' });
    });
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(o.port, o.host, () => done());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = o.host.includes(':') ? `[${o.host}]` : o.host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
