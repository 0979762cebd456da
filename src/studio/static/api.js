// Talks to the Studio's JSON API. The token (when one is needed) travels in a same-site cookie
// set by the printed URL, so requests here carry nothing extra.

/** An API refusal: the server's one-line message, the field at fault and a hint. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? `HTTP ${status}`);
    this.status = status;
    this.field = body?.field;
    this.hint = body?.hint;
    this.code = body?.code;
  }
}

async function answer(res) {
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, body);
  return body;
}

export function get(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v)) for (const x of v) q.append(k, x);
    else q.set(k, String(v));
  }
  const qs = q.toString();
  return fetch(`${path}${qs ? `?${qs}` : ''}`, { credentials: 'same-origin' }).then(answer);
}

export function post(path, body) {
  return fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  }).then(answer);
}
