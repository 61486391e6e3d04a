/**
 * The HTTP app: a route table built once at startup, gateway-key auth on every `/v1` route
 * (except admin routes, which check the admin key themselves), and one error path that answers
 * every failure with the OpenAI envelope. Never lets a request crash the process.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientAbortError, InvalidRequestError, MethodNotAllowedError, NotFoundError } from '../errors.js';
import { looksLikeSecret, REDACTED } from '../scrub-secrets.js';
import type { GatewayKeyCheck } from './auth.js';
import { settleRefusedConnection } from './refused-body.js';
import { logUnexpected, sendError, sendJson } from './respond.js';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, params: Record<string, string>) => Promise<void> | void;

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Exact path, or one with a `/:name` segment (`/v1/x/:id`, `/v1/x/:id/items`) matching one path segment. */
  path: string;
  handler: RouteHandler;
  /** `gateway` (default for /v1), `none` (health) or `self` (the handler checks, e.g. admin). */
  auth?: 'gateway' | 'none' | 'self';
}

export interface AppOptions {
  routes: Route[];
  checkGatewayKey: GatewayKeyCheck;
  log?: (line: string) => void;
}

interface CompiledPattern {
  prefix: string;
  param: string;
  /** What follows the segment, e.g. `/input_items`; empty for a trailing segment. */
  suffix: string;
  byMethod: Map<string, Route>;
}

export function createApp(options: AppOptions) {
  const exact = new Map<string, Map<string, Route>>();
  const patterns: CompiledPattern[] = [];
  for (const route of options.routes) {
    const colon = route.path.lastIndexOf('/:');
    if (colon === -1) {
      const byMethod = exact.get(route.path) ?? new Map<string, Route>();
      byMethod.set(route.method, route);
      exact.set(route.path, byMethod);
    } else {
      const prefix = route.path.slice(0, colon + 1);
      const rest = route.path.slice(colon + 2);
      const slash = rest.indexOf('/');
      const param = slash === -1 ? rest : rest.slice(0, slash);
      const suffix = slash === -1 ? '' : rest.slice(slash);
      let pattern = patterns.find((p) => p.prefix === prefix && p.suffix === suffix);
      if (!pattern) patterns.push((pattern = { prefix, param, suffix, byMethod: new Map() }));
      pattern.byMethod.set(route.method, route);
    }
  }
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  function match(path: string): { byMethod: Map<string, Route>; params: Record<string, string> } | undefined {
    const direct = exact.get(path);
    if (direct) return { byMethod: direct, params: {} };
    for (const p of patterns) {
      if (path.startsWith(p.prefix) && path.endsWith(p.suffix) && path.length > p.prefix.length + p.suffix.length) {
        const rest = path.slice(p.prefix.length, path.length - p.suffix.length);
        if (rest.length > 0 && !rest.includes('/')) return { byMethod: p.byMethod, params: { [p.param]: decodeSegment(rest) } };
      }
    }
    return undefined;
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const found = match(path);
      if (!found) throw new NotFoundError(`Unknown route: ${req.method} ${shownPath(path)}`, { code: 'unknown_route' });
      const route = found.byMethod.get(req.method ?? '');
      if (!route) {
        res.setHeader('allow', [...found.byMethod.keys()].join(', '));
        throw new MethodNotAllowedError(`Method ${req.method} not allowed on ${shownPath(path)}`, { code: 'method_not_allowed' });
      }
      const auth = route.auth ?? (path.startsWith('/v1/') ? 'gateway' : 'none');
      if (auth === 'gateway') options.checkGatewayKey(req.headers);
      await route.handler(req, res, found.params);
    } catch (err) {
      if (err instanceof ClientAbortError) {
        res.destroy(); // the client is gone: nothing to answer, nothing to log
        return;
      }
      logUnexpected(log, req, err);
      // A refused body (too large, or over the in-flight budget) is not read to its end.
      settleRefusedConnection(req, res, err);
      sendError(res, err);
    }
  };
}

export function healthRoutes(isDraining: () => boolean, renderMetrics?: () => Promise<string>): Route[] {
  const routes: Route[] = [
    { method: 'GET', path: '/healthz', auth: 'none', handler: (_req, res) => sendJson(res, 200, { status: 'ok' }) },
    {
      method: 'GET',
      path: '/readyz',
      auth: 'none',
      handler: (_req, res) =>
        isDraining() ? sendJson(res, 503, { status: 'draining' }) : sendJson(res, 200, { status: 'ready' }),
    },
  ];
  if (renderMetrics) {
    routes.push({
      method: 'GET',
      path: '/metrics',
      auth: 'none',
      handler: async (_req, res) => {
        const text = await renderMetrics();
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(text);
      },
    });
  }
  return routes;
}

/** The path as an error message may show it: at most 200 characters, a key-like segment left out. */
function shownPath(path: string): string {
  return path
    .slice(0, 200)
    .split('/')
    .map((segment) => (looksLikeSecret(segment) ? REDACTED : segment))
    .join('/');
}

/** A path segment with its percent-escapes decoded; a malformed escape (`%zz`, `%E0%A4%A`) is the client's 400. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidRequestError('the request path has a malformed percent-escape', { code: 'invalid_path' });
  }
}
