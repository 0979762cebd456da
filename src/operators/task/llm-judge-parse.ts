/**
 * Read a judge's score from its reply: a JSON object with a numeric `score` (bare, inside a
 * ```json fence, or embedded in prose), or a reply that is just a number (`7`, `Score: 7`,
 * `7/10`). Anything else is malformed: the caller quarantines the row with this reason, since a
 * guessed score would silently skew every filter downstream.
 */
export type JudgeParse = { score: number; reason?: string } | { error: string };

function excerpt(text: string, max = 120): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

function fromObject(value: unknown): JudgeParse | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  const raw = o.score;
  const score =
    typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(score))
    return { error: `the judge's JSON has no numeric "score": ${excerpt(JSON.stringify(o))}` };
  return typeof o.reason === 'string' ? { score, reason: o.reason } : { score };
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const BARE_NUMBER = /^\s*(?:score\s*[:=]?\s*)?(-?\d+(?:\.\d+)?)\s*(?:\/\s*\d+(?:\.\d+)?)?\s*\.?\s*$/i;

export function parseJudgeReply(reply: string): JudgeParse {
  const text = reply.trim();
  if (text === '') return { error: 'the judge returned an empty reply' };
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  const braces = /\{[\s\S]*\}/.exec(text)?.[0];
  for (const candidate of [text, fenced, braces]) {
    if (candidate === undefined) continue;
    const parsed = fromObject(tryJson(candidate.trim()));
    if (parsed) return parsed;
  }
  const bare = BARE_NUMBER.exec(text);
  if (bare) return { score: Number(bare[1]) };
  return { error: `the judge's reply is neither JSON with a "score" nor a number: ${excerpt(text)}` };
}
