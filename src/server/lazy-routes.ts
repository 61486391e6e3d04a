/**
 * A group of routes whose module is imported on its first request instead of at start. A typical
 * sidecar serves only chat completions; the other front doors (Responses, prompts, logs, feedback,
 * traces, files, models, embeddings) and their zod schemas, parsers and translators would otherwise
 * be compiled and kept on the heap of every pod (issue 11, idle RSS).
 *
 * The route table is declared up front (method, path, auth), so matching, 404, 405 and the auth
 * check are exactly those of an eagerly built route. The first request to any route of the group
 * pays the import once; later requests reuse the built handlers. A failed import is thrown to the
 * app, which logs it and answers 500 (it never crashes the process), and is tried again on the next
 * request. A group whose module builds a different table than declared fails the same way, so a
 * drift between the two cannot go unnoticed.
 */
import type { Route, RouteHandler } from './app.js';

/** What the route table needs before the group's module is loaded. */
export type RouteStub = Pick<Route, 'method' | 'path' | 'auth'>;

export function lazyRoutes(stubs: readonly RouteStub[], load: () => Promise<Route[]>): Route[] {
  let loading: Promise<Map<string, RouteHandler>> | undefined;
  const handlers = () =>
    (loading ??= load().then(
      (routes) => byKey(stubs, routes),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  return stubs.map((stub) => {
    const key = routeKey(stub);
    let handler: RouteHandler | undefined;
    return {
      handler: async (req, res, params) => {
        handler ??= (await handlers()).get(key)!;
        return handler(req, res, params);
      },
      ...stub,
    };
  });
}

function byKey(stubs: readonly RouteStub[], routes: readonly Route[]): Map<string, RouteHandler> {
  const declared = stubs.map(routeKey).sort();
  const built = routes.map(routeKey).sort();
  if (declared.join('\n') !== built.join('\n')) {
    throw new Error(`lazy routes: declared [${declared.join(', ')}] but the module built [${built.join(', ')}]`);
  }
  return new Map(routes.map((route) => [routeKey(route), route.handler]));
}

function routeKey(route: RouteStub): string {
  return `${route.method} ${route.path} auth=${route.auth ?? 'default'}`;
}
