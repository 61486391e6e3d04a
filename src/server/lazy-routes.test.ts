import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type Route } from './app.js';
import { createGatewayKeyCheck } from './auth.js';
import { lazyRoutes, type RouteStub } from './lazy-routes.js';
import { sendJson } from './respond.js';

const KEY = 'lazy-test-gateway-key';
const STUBS: RouteStub[] = [
  { method: 'POST', path: '/v1/things' },
  { method: 'GET', path: '/v1/things/:id' },
  { method: 'GET', path: '/v1/admin-things', auth: 'self' },
];

/** What the group's module would build: the same table, with real handlers. */
function built(): Route[] {
  return [
    { method: 'POST', path: '/v1/things', handler: (_req, res) => sendJson(res, 201, { made: true }) },
    { method: 'GET', path: '/v1/things/:id', handler: (_req, res, params) => sendJson(res, 200, { id: params.id }) },
    { method: 'GET', path: '/v1/admin-things', auth: 'self', handler: (_req, res) => sendJson(res, 200, { admin: true }) },
  ];
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(routes: Route[]) {
  const logged: string[] = [];
  const app = createApp({ routes, checkGatewayKey: createGatewayKeyCheck([KEY]), log: (line) => logged.push(line) });
  server = createServer((req, res) => void app(req, res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string, key: string | undefined = KEY) => {
    const res = await fetch(`${url}${path}`, { method, headers: key ? { 'x-gateway-api-key': key } : {} });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, allow: res.headers.get('allow') };
  };
  return { call, logged };
}

describe('lazyRoutes', () => {
  it('loads the group once, on its first request, and serves every route of it', async () => {
    let loads = 0;
    const { call } = await serve(
      lazyRoutes(STUBS, async () => {
        loads++;
        return built();
      }),
    );
    expect(loads).toBe(0);
    const answers = await Promise.all([call('POST', '/v1/things'), call('GET', '/v1/things/a%2Fb'), call('GET', '/v1/admin-things', undefined)]);
    expect(answers.map((a) => [a.status, a.body])).toStrictEqual([
      [201, { made: true }],
      [200, { id: 'a/b' }],
      [200, { admin: true }],
    ]);
    expect(await call('GET', '/v1/things/x')).toMatchObject({ status: 200, body: { id: 'x' } });
    expect(loads).toBe(1);
  });

  it('answers 404, 405 and 401 from the declared table without loading anything', async () => {
    let loads = 0;
    const { call } = await serve(
      lazyRoutes(STUBS, async () => {
        loads++;
        return built();
      }),
    );
    expect(await call('GET', '/v1/thingz')).toMatchObject({ status: 404, body: { error: { code: 'unknown_route' } } });
    expect(await call('DELETE', '/v1/things')).toMatchObject({ status: 405, allow: 'POST', body: { error: { code: 'method_not_allowed' } } });
    expect((await call('POST', '/v1/things', 'wrong-key')).status).toBe(401);
    expect(loads).toBe(0);
  });

  it('answers a failed import with a logged 500, and tries the import again on the next request', async () => {
    let loads = 0;
    const { call, logged } = await serve(
      lazyRoutes(STUBS, async () => {
        loads++;
        if (loads === 1) throw new Error('Cannot find module things-route.js');
        return built();
      }),
    );
    expect(await call('POST', '/v1/things')).toStrictEqual({
      status: 500,
      allow: null,
      body: { error: { message: 'internal error in the gateway', type: 'server_error', param: null, code: 'internal_error' } },
    });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain('unexpected error on POST /v1/things: Error: Cannot find module things-route.js');
    expect(await call('POST', '/v1/things')).toMatchObject({ status: 201, body: { made: true } });
    expect(loads).toBe(2);
  });

  it('refuses a module whose table differs from the declared one (a route missing, or another auth)', async () => {
    const missing = await serve(lazyRoutes(STUBS, async () => built().slice(0, 2)));
    expect((await missing.call('POST', '/v1/things')).status).toBe(500);
    expect(missing.logged[0]).toContain('lazy routes: declared');
    await new Promise<void>((resolve) => server!.close(() => resolve()));

    const otherAuth = await serve(lazyRoutes(STUBS, async () => built().map((r) => ({ ...r, auth: 'self' as const }))));
    expect((await otherAuth.call('POST', '/v1/things')).status).toBe(500);
    expect(otherAuth.logged[0]).toContain('GET /v1/admin-things auth=self');
  });
});
