/**
 * undici's `Agent` and `request`, loaded without the rest of undici.
 *
 * Why: undici's package entry eagerly loads fetch, WebSocket, EventSource, caches, cookies and
 * mocks, about 9 MB of resident memory a sidecar never uses (measured: 15.7 MB for the entry,
 * 7 MB for the two modules below). Idle memory is part of the sidecar's contract, so upstream
 * HTTP takes only the keep-alive agent and the request API. Same code, same behaviour as
 * `import { Agent, request } from 'undici'`; the version is pinned in package.json and
 * `http-client.test.ts` checks these internal paths still resolve to those exports.
 */
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher, request as undiciRequest } from 'undici';

const load = createRequire(import.meta.url);

export const Agent = load('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;

type RequestOptions = NonNullable<Parameters<typeof undiciRequest>[1]>;
const dispatchRequest = load('undici/lib/api/api-request.js') as (
  this: Dispatcher,
  options: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/**
 * `request(url, options)` as undici's entry exports it, for calls that name their dispatcher
 * (every call in sidegate does: there is no global dispatcher here).
 */
export function request(url: string | URL, options: RequestOptions & { dispatcher: Dispatcher }): Promise<Dispatcher.ResponseData> {
  const { origin, path } = splitUrl(url);
  const { dispatcher, ...rest } = options;
  // Assigned, not `{ ...rest, origin, … }`: see test/integration/hot-path-spreads.test.ts.
  const dispatchOptions = rest as Dispatcher.RequestOptions;
  dispatchOptions.origin = origin;
  dispatchOptions.path = path;
  dispatchOptions.method = options.method ?? (options.body ? 'PUT' : 'GET');
  return dispatchRequest.call(dispatcher, dispatchOptions);
}

const PLAIN_URL = /^(https?:\/\/[^/?#@]+)(\/[^#]*)?$/;

/**
 * Origin and path of a URL. Every upstream call goes through here, and our URLs are built from
 * validated base URLs, so the common shape is split with one regex instead of a full WHATWG parse;
 * anything unusual (credentials, fragments, odd schemes) takes the full parse.
 */
export function splitUrl(url: string | URL): { origin: string; path: string } {
  if (typeof url === 'string') {
    const m = PLAIN_URL.exec(url);
    if (m) return { origin: m[1]!.toLowerCase(), path: m[2] ?? '/' };
  }
  const parsed = typeof url === 'string' ? new URL(url) : url;
  return { origin: parsed.origin, path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname };
}

export type { Dispatcher };

/**
 * The keep-alive pool of one provider: connections per origin as large as the client-side cap,
 * no header timeout (the attempt timer is the header clock, DESIGN Decision 6) and the gateway's
 * body idle timeout instead of undici's 300 s defaults (which answered 502 before the documented
 * 504).
 */
export function createUpstreamAgent(options: { maxConnections?: number | undefined; bodyIdleTimeoutMs?: number | undefined }): UndiciAgent {
  return new Agent({
    keepAliveTimeout: 30_000,
    connections: options.maxConnections ?? 4096,
    headersTimeout: 0,
    bodyTimeout: options.bodyIdleTimeoutMs ?? 600_000,
  });
}
