/**
 * The query string of `GET /ui/traces`: every filter, the sort and the page, so a view is a link
 * to share. Pure. `parseListQuery` is strict (a bad value is a 400 naming the parameter, shown on
 * the page); `listSearchParams` writes a query back, leaving out defaults so links stay short.
 */
import { InvalidRequestError } from '../errors.js';
import { parseSince } from '../traces/parse-since.js';

export const SORTS = ['time', 'cost', 'duration'] as const;
export type ListSort = (typeof SORTS)[number];

export interface ListQuery {
  /** The window as written (`1h`), and in ms. */
  since: string;
  sinceMs: number;
  /** `meta=key=value` filters, all of which must hold. */
  metadata: Array<[string, string]>;
  model: string | undefined;
  prompt: string | undefined;
  version: number | undefined;
  /** Only traces with a failed attempt or a span in error. */
  failed: boolean;
  minCostUsd: number | undefined;
  minDurationMs: number | undefined;
  sort: ListSort;
  page: number;
}

export const DEFAULT_SINCE = '1h';

export function parseListQuery(params: URLSearchParams): ListQuery {
  const since = text(params, 'since') ?? DEFAULT_SINCE;
  const sinceMs = parseSince(since);
  if (sinceMs === null) throw new InvalidRequestError('since must be a duration such as 30m, 1h or 2d, at most 30d', { param: 'since' });
  const metadata = params.getAll('meta').flatMap((pair): Array<[string, string]> => {
    if (pair.trim() === '') return [];
    const eq = pair.indexOf('=');
    const key = eq === -1 ? '' : pair.slice(0, eq).trim();
    if (key === '' || pair.length > 400) throw new InvalidRequestError('meta must be key=value, e.g. user=alice', { param: 'meta' });
    return [[key, pair.slice(eq + 1).trim()]];
  });
  const sort = text(params, 'sort') ?? 'time';
  if (!(SORTS as readonly string[]).includes(sort)) throw new InvalidRequestError(`sort must be one of ${SORTS.join(', ')}`, { param: 'sort' });
  const failed = text(params, 'failed');
  return {
    since,
    sinceMs,
    metadata,
    model: text(params, 'model'),
    prompt: text(params, 'prompt'),
    version: number(params, 'version', { integer: true, min: 1 }),
    failed: failed === '1' || failed === 'true' || failed === 'on',
    minCostUsd: number(params, 'min_cost', { min: 0 }),
    minDurationMs: number(params, 'min_ms', { min: 0 }),
    sort: sort as ListSort,
    page: number(params, 'page', { integer: true, min: 1 }) ?? 1,
  };
}

/** The query as a link's search params, defaults left out; `change` overrides fields (e.g. the page). */
export function listSearchParams(query: ListQuery, change: Partial<ListQuery> = {}): URLSearchParams {
  const q = Object.assign({}, query, change);
  const out = new URLSearchParams();
  if (q.since !== DEFAULT_SINCE) out.set('since', q.since);
  for (const [key, value] of q.metadata) out.append('meta', `${key}=${value}`);
  if (q.model !== undefined) out.set('model', q.model);
  if (q.prompt !== undefined) out.set('prompt', q.prompt);
  if (q.version !== undefined) out.set('version', String(q.version));
  if (q.failed) out.set('failed', '1');
  if (q.minCostUsd !== undefined) out.set('min_cost', String(q.minCostUsd));
  if (q.minDurationMs !== undefined) out.set('min_ms', String(q.minDurationMs));
  if (q.sort !== 'time') out.set('sort', q.sort);
  if (q.page !== 1) out.set('page', String(q.page));
  return out;
}

/** A trimmed, non-empty value of at most 200 characters, or undefined. */
function text(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name)?.trim();
  if (value === undefined || value === '') return undefined;
  if (value.length > 200) throw new InvalidRequestError(`${name} is longer than 200 characters`, { param: name });
  return value;
}

function number(params: URLSearchParams, name: string, rule: { integer?: boolean; min: number }): number | undefined {
  const value = text(params, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < rule.min || (rule.integer === true && !Number.isInteger(n)) || n > 1e12) {
    throw new InvalidRequestError(`${name} must be ${rule.integer ? 'an integer' : 'a number'} of at least ${rule.min}`, { param: name });
  }
  return n;
}
