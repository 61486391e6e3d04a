/**
 * The Traces view's routes (issue 21): sign-in at `/ui/`, the trace list, one trace, a prompt's
 * versions, the JSON download, and the two assets. Loaded on the first request to any of them
 * (the route table declares them lazily), so a sidecar nobody browses holds none of this.
 *
 * Every route but `/ui/` and the sign-in post needs the session cookie (ui-session.ts): a page
 * asked for without one answers 401 with the sign-in form, an asset a bare 401. Errors a person
 * can act on (backend unset or down, unknown trace, bad filter) are pages, not JSON; anything else
 * is thrown to the app, which logs it and answers 500. A key is only ever read from the sign-in
 * form's body: never from a URL, never written to a page or a log.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthError, GatewayError, NotFoundError } from '../errors.js';
import type { Route, RouteHandler } from '../server/app.js';
import { createGatewayKeyCheck } from '../server/auth.js';
import { readBody } from '../server/read-body.js';
import { parseSince } from '../traces/parse-since.js';
import { readRecentTraceSpans, readTraceSpans, TracesUnavailableError } from '../traces/read-summaries.js';
import { summarizeTrace } from '../traces/summarize-trace.js';
import type { TraceReader } from '../traces/trace-reader.js';
import { parseListQuery, listSearchParams } from './list-query.js';
import { promptVersionsOf } from './prompt-versions.js';
import { ASSET_PATHS, renderBackendProblem, renderProblem, renderSignIn } from './render-layout.js';
import { renderPromptVersions } from './render-prompt-versions.js';
import { renderAttributes, renderTrace } from './render-trace.js';
import { renderTraceList } from './render-trace-list.js';
import { redirect, sendBody, sendPage } from './send-page.js';
import { listPage } from './trace-list.js';
import { createUiSessions, readCookie, SESSION_COOKIE, sessionCookie, type UiSessions } from './ui-session.js';
import { VIEW_JS } from './view-script.js';
import { VIEW_CSS } from './view-style.js';
import { DEFAULT_COLLAPSE_DEPTH, waterfallOf } from './waterfall.js';

export interface TracesViewDeps {
  reader: TraceReader | undefined;
  /** `service.name` of this gateway's spans: the traces listed. */
  serviceName: string;
  /** Gateway keys (`SIDEGATE_API_KEYS`) and the admin key: either signs in. */
  apiKeys: readonly string[];
  adminKey: string | undefined;
  /** Metadata keys shown as list columns (`SIDEGATE_UI_COLUMNS`). */
  columns: readonly string[];
  /** `SIDEGATE_JAEGER_UI_URL`: "open in Jaeger" links when set. */
  jaegerUiUrl: string | undefined;
  sessions?: UiSessions;
  now?: () => number;
}

/** The most traces one list or prompt page reads from the backend. */
export const READ_LIMIT = 1000;
const MAX_FORM_BYTES = 8 * 1024;

export function createTracesViewRoutes(deps: TracesViewDeps): Route[] {
  const sessions = deps.sessions ?? createUiSessions();
  const now = deps.now ?? Date.now;
  const isKnownKey = keyCheck(deps.apiKeys, deps.adminKey);
  const signedIn = (req: IncomingMessage) => sessions.isValid(readCookie(req.headers.cookie, SESSION_COOKIE), now());

  /** A page behind the session: 401 + the sign-in form without one; errors a person can act on as pages. */
  const page =
    (handler: (req: IncomingMessage, res: ServerResponse, params: Record<string, string>, query: URLSearchParams) => Promise<void>): RouteHandler =>
    async (req, res, params) => {
      if (!signedIn(req)) return sendPage(res, 401, renderSignIn({ next: safeNext(req.url) }));
      try {
        await handler(req, res, params, new URLSearchParams((req.url ?? '').split('?')[1] ?? ''));
      } catch (err) {
        if (!(err instanceof GatewayError)) throw err;
        if (err instanceof TracesUnavailableError) return sendPage(res, 503, renderBackendProblem(err.message, err.code === 'traces_url_unset'));
        sendPage(res, err.status, renderProblem(err instanceof NotFoundError ? 'Not found' : 'Cannot show this page', err.message));
      }
    };
  const asset =
    (contentType: string, body: string): RouteHandler =>
    (req, res) =>
      signedIn(req) ? sendBody(res, 200, contentType, body) : sendBody(res, 401, 'text/plain; charset=utf-8', 'sign in at /ui/\n');

  return [
    { method: 'GET', path: '/ui', handler: (_req, res) => redirect(res, '/ui/') },
    {
      method: 'GET',
      path: '/ui/',
      handler: (req, res) => (signedIn(req) ? redirect(res, '/ui/traces') : sendPage(res, 200, renderSignIn({ next: '/ui/traces' }))),
    },
    {
      method: 'POST',
      path: '/ui/sign-in',
      handler: async (req, res) => {
        checkSameOrigin(req);
        const form = new URLSearchParams((await readBody(req, MAX_FORM_BYTES)).toString('utf8'));
        const next = safeNext(form.get('next') ?? undefined);
        if (!isKnownKey(form.get('key') ?? '')) return sendPage(res, 401, renderSignIn({ next, failed: true }));
        redirect(res, next, { 'set-cookie': sessionCookie(sessions.issue(now())) });
      },
    },
    {
      method: 'POST',
      path: '/ui/sign-out',
      handler: (req, res) => {
        checkSameOrigin(req);
        sessions.revoke(readCookie(req.headers.cookie, SESSION_COOKIE), now());
        redirect(res, '/ui/', { 'set-cookie': sessionCookie(undefined) });
      },
    },
    {
      method: 'GET',
      path: '/ui/traces',
      handler: page(async (_req, res, _params, params) => {
        const query = parseListQuery(params);
        const { traces } = await readRecentTraceSpans(deps.reader, { service: deps.serviceName, sinceMs: query.sinceMs, limit: READ_LIMIT, now: new Date(now()) });
        const view = { query, page: listPage(traces, query), columns: deps.columns, service: deps.serviceName, read: traces.length, readLimit: READ_LIMIT };
        sendPage(res, 200, renderTraceList(view));
      }),
    },
    {
      method: 'GET',
      path: '/ui/traces/:traceId',
      handler: page(async (_req, res, params, query) => {
        const spans = await readTraceSpans(deps.reader, traceIdOf(params));
        const summary = summarizeTrace(spans);
        const folded = query.get('levels') !== 'all';
        // `from` is the list's query string; re-parsed, so only a valid list query is linked back to.
        const from = listSearchParams(parseListQuery(new URLSearchParams(query.get('from') ?? ''))).toString();
        const rows = waterfallOf(summary, spans, folded ? DEFAULT_COLLAPSE_DEPTH : Number.POSITIVE_INFINITY);
        const openSpanId = query.get('span') ?? undefined;
        sendPage(res, 200, renderTrace({ summary, rows, jaegerUiUrl: deps.jaegerUiUrl, from, folded, openSpanId }));
      }),
    },
    {
      method: 'GET',
      path: '/ui/traces/:traceId/attributes',
      handler: page(async (_req, res, params, query) => {
        const span = (await readTraceSpans(deps.reader, traceIdOf(params))).find((s) => s.spanId === query.get('span'));
        if (span === undefined) throw new NotFoundError('no such span in this trace');
        sendBody(res, 200, 'text/html; charset=utf-8', renderAttributes(span).text);
      }),
    },
    {
      method: 'GET',
      path: '/ui/traces/:traceId/json',
      handler: page(async (_req, res, params) => {
        const summary = summarizeTrace(await readTraceSpans(deps.reader, traceIdOf(params)));
        sendBody(res, 200, 'application/json', JSON.stringify(summary, null, 2), {
          'content-disposition': `attachment; filename="trace-${summary.trace_id}.json"`,
        });
      }),
    },
    {
      method: 'GET',
      path: '/ui/prompts/:id',
      handler: page(async (_req, res, params, query) => {
        const promptId = (params.id ?? '').trim();
        if (promptId === '' || promptId.length > 200) throw new NotFoundError('no such prompt id');
        const since = parseListQuery(new URLSearchParams({ since: query.get('since') ?? '24h' })).since;
        const sinceMs = parseSince(since)!;
        const { traces } = await readRecentTraceSpans(deps.reader, { service: deps.serviceName, sinceMs, limit: READ_LIMIT, now: new Date(now()) });
        const versions = promptVersionsOf(promptId, traces);
        sendPage(res, 200, renderPromptVersions({ promptId, since, versions, read: traces.length, readLimit: READ_LIMIT }));
      }),
    },
    { method: 'GET', path: ASSET_PATHS.css, handler: asset('text/css; charset=utf-8', VIEW_CSS) },
    { method: 'GET', path: ASSET_PATHS.js, handler: asset('text/javascript; charset=utf-8', VIEW_JS) },
  ];
}

/** True for a gateway key or the admin key; compared as digests in constant time (server/auth.ts). */
function keyCheck(apiKeys: readonly string[], adminKey: string | undefined): (key: string) => boolean {
  const gateway = apiKeys.length > 0 ? createGatewayKeyCheck(apiKeys) : undefined;
  const admin = adminKey === undefined ? undefined : createHash('sha256').update(adminKey).digest();
  return (key) => {
    if (key === '' || key.length > 1024) return false;
    let ok = false;
    if (admin !== undefined) ok = timingSafeEqual(createHash('sha256').update(key).digest(), admin);
    if (gateway !== undefined) {
      try {
        gateway({ 'x-gateway-api-key': key });
        ok = true;
      } catch (err) {
        if (!(err instanceof AuthError)) throw err;
      }
    }
    return ok;
  };
}

/** Where to go after signing in: a path of the view, else the list (never another site). */
function safeNext(url: string | undefined): string {
  return url !== undefined && /^\/ui\/[^\\\s]*$/.test(url) && !url.startsWith('//') && url.length <= 2000 && !url.startsWith('/ui/sign-') ? url : '/ui/traces';
}

/**
 * A form post from another site is refused (the cookie's SameSite=Strict already keeps the session
 * out of it). Browsers say where a request comes from in `Sec-Fetch-Site`; `Origin` is checked too,
 * except when it is `null` (what a browser sends under `Referrer-Policy: no-referrer`).
 */
function checkSameOrigin(req: IncomingMessage): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new AuthError('cross-site form post refused', { status: 403, code: 'cross_site_post' });
  }
  const origin = req.headers.origin;
  if (origin === undefined || origin === 'null') return;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    host = '';
  }
  if (host !== req.headers.host) throw new AuthError('cross-site form post refused', { status: 403, code: 'cross_site_post' });
}

function traceIdOf(params: Record<string, string>): string {
  const id = (params.traceId ?? '').trim();
  if (id.length === 0 || id.length > 256) throw new NotFoundError('a trace id is 1 to 256 characters');
  return id;
}
