import { ARROW_STREAM, batchToArrowStream } from './arrow-batch.ts';
import { parseBody } from './http-error.ts';
import { rewardRoute } from './reward-route.ts';
import type { Route, RouteRequest } from './router.ts';
import {
  AckRequestSchema,
  ExperiencesRequestSchema,
  FeedbackRequestSchema,
  SampleRequestSchema,
  SERVE_API_VERSION,
  SelectRequestSchema,
} from './schemas.ts';
import type { ServeSession } from './serve-session.ts';

/** Whether the client asked for an Arrow stream (`Accept: application/vnd.apache.arrow.stream`). */
function wantsArrow(req: RouteRequest): boolean {
  const accept = req.headers.accept;
  const text = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  return text
    .split(',')
    .map((s) => s.split(';')[0]!.trim().toLowerCase())
    .includes(ARROW_STREAM);
}

/** Every route of API v1 (docs/serve.md describes each). */
export function serveRoutes(session: ServeSession, winnowVersion: string): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/health',
      summary: 'liveness: the run and how many mutating requests it has served',
      handle: () => ({ json: { status: 'ok', runId: session.runId, revision: session.revision } }),
    },
    {
      method: 'GET',
      path: '/v1/version',
      summary: 'the Winnow version, the API version and the selector',
      handle: () => ({
        json: { winnow: winnowVersion, api: SERVE_API_VERSION, selector: session.selectorType },
      }),
    },
    {
      method: 'POST',
      path: '/v1/select',
      summary: 'the next n tasks (ids and rows)',
      handle: async (req) => ({ json: await session.select(parseBody(SelectRequestSchema, req.body)) }),
    },
    {
      method: 'POST',
      path: '/v1/feedback',
      summary: 'per-task rewards or pass rates, fed to the selector',
      handle: async (req) => ({ json: await session.feedback(parseBody(FeedbackRequestSchema, req.body)) }),
    },
    {
      method: 'POST',
      path: '/v1/experiences',
      summary: 'write rollouts to the buffer (through the run’s experience operators)',
      handle: async (req) => ({
        json: await session.writeExperiences(parseBody(ExperiencesRequestSchema, req.body)),
      }),
    },
    {
      method: 'POST',
      path: '/v1/sample',
      summary: 'a leased training batch (JSON, or an Arrow IPC stream by Accept)',
      handle: async (req) => {
        const arrow = wantsArrow(req);
        const batch = await session.sample(parseBody(SampleRequestSchema, req.body));
        if (!arrow) return { json: batch };
        return {
          bytes: batchToArrowStream(batch.experiences, batch.weights, batch),
          contentType: ARROW_STREAM,
          headers: {
            'Winnow-Lease': String(batch.lease),
            ...(batch.blocked ? { 'Winnow-Blocked': encodeURIComponent(batch.blocked) } : {}),
          },
        };
      },
    },
    {
      method: 'POST',
      path: '/v1/ack',
      summary: 'acknowledge every lease up to the given one (its training is durable)',
      handle: async (req) => ({ json: await session.ack(parseBody(AckRequestSchema, req.body)) }),
    },
    {
      method: 'GET',
      path: '/v1/pending',
      summary: 'the selections still waiting for feedback (what a restarted trainer recovers)',
      handle: async () => ({ json: await session.pending() }),
    },
    rewardRoute(session),
    {
      method: 'GET',
      path: '/v1/metrics',
      summary: 'counters, buffer size and the selector’s totals',
      handle: async () => ({ json: await session.metrics() }),
    },
  ];
}
