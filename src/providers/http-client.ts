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
  const parsed = typeof url === 'string' ? new URL(url) : url;
  const { dispatcher, ...rest } = options;
  return dispatchRequest.call(dispatcher, {
    ...(rest as Dispatcher.RequestOptions),
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
    method: options.method ?? (options.body ? 'PUT' : 'GET'),
  });
}

export type { Dispatcher };
