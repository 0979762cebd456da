import { escapeHtml as esc } from '../charts.ts';
import type { ReportInput } from '../report-input.ts';

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A plug-in slot as one line: `version_priority (alpha=0.6, beta=0.4)`, `./mine.ts#Sampler`, or the name. */
export function slotText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (!isObject(v)) return v === undefined ? '' : JSON.stringify(v);
  const name =
    typeof v.type === 'string'
      ? v.type
      : typeof v.module === 'string'
        ? `${v.module}#${typeof v.export === 'string' ? v.export : 'default'}`
        : JSON.stringify(v);
  const params = isObject(v.params) ? Object.entries(v.params) : [];
  return params.length === 0
    ? name
    : `${name} (${params.map(([k, p]) => `${k}=${JSON.stringify(p)}`).join(', ')})`;
}

/**
 * The buffer and replay settings that shape what the trainer sees: sampler, remover, rate limiter
 * (replay ratio), group keeping, capacity, the trainer's sample strategy and how far exploring may
 * run ahead; with the counters of rows the sample strategy skipped as stale.
 */
export function bufferRows(r: ReportInput): Array<[string, string]> {
  const c = isObject(r.config) ? r.config : {};
  const buffer = isObject(c.buffer) ? c.buffer : {};
  const lc = isObject(c.lifecycle) ? c.lifecycle : {};
  const rows: Array<[string, string]> = [];
  const add = (k: string, v: unknown) => {
    if (v !== undefined) rows.push([k, typeof v === 'string' ? v : slotText(v)]);
  };
  add('sampler', buffer.sampler);
  add('remover', buffer.remover ?? "the sampler's choice");
  add(
    'rate limiter (replay ratio)',
    buffer.rateLimiter === undefined ? 'none' : JSON.stringify(buffer.rateLimiter),
  );
  add('keep groups whole', buffer.keepGroups === undefined ? undefined : String(buffer.keepGroups));
  add(
    'capacity',
    buffer.capacity === null
      ? 'unbounded'
      : buffer.capacity === undefined
        ? undefined
        : String(buffer.capacity),
  );
  add('sample strategy', c.sampling);
  add('mode', lc.mode);
  if (lc.mode === 'async') add('explorer may run ahead (steps)', String(lc.maxExploreAhead));
  if (lc.syncOffset !== undefined) add('sync offset (off-policy steps)', String(lc.syncOffset));
  if (lc.syncInterval !== undefined) add('sync interval (steps)', String(lc.syncInterval));
  add('train batch', lc.trainBatch === undefined ? 'one explorer step' : String(lc.trainBatch));
  if (r.counters.skippedStale !== undefined) add('rows skipped as stale', String(r.counters.skippedStale));
  return rows;
}

export function bufferSection(r: ReportInput): string {
  const rows = bufferRows(r);
  if (rows.length === 0) return '';
  return `<h2>Buffer and replay</h2>
<table class="buffer">${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>`;
}
