/**
 * `GET /v1/traces[/id]` and `sidegate trace[s]` without a trace backend, or with one that does not
 * answer: 503 naming which, and the 400 rows of the list query. Reading real traces back from
 * Jaeger is the end-to-end suite's job (test/e2e/traces-product.test.ts).
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTraceCli, runTracesCli } from '../../src/traces/traces-cli.js';
import { GATEWAY_KEY, startHarness, type Harness } from './harness.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let unset: Harness;
let dead: Harness;
let deadUrl: string;
beforeAll(async () => {
  deadUrl = `http://127.0.0.1:${await closedPort()}`;
  [unset, dead] = await Promise.all([startHarness(), startHarness({ tracesUrl: deadUrl })]);
});
afterAll(async () => {
  await Promise.all([unset.close(), dead.close()]);
});

const get = async (h: Harness, path: string, key = GATEWAY_KEY) => {
  const res = await fetch(`${h.gateway.url}${path}`, { headers: { 'x-gateway-api-key': key } });
  return { status: res.status, body: (await res.json()) as { error: { message: string; type: string; param: string | null; code: string | null } } };
};

describe('GET /v1/traces', () => {
  it.each(['/v1/traces/some-trace', '/v1/traces'])('%s answers 503 when SIDEGATE_TRACES_URL is unset, saying so', async (path) => {
    const res = await get(unset, path);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('traces_url_unset');
    expect(res.body.error.message).toContain('SIDEGATE_TRACES_URL is not set');
  });

  it.each(['/v1/traces/some-trace', '/v1/traces?since=2d&limit=5'])('%s answers 503 when the backend is unreachable, naming it', async (path) => {
    const res = await get(dead, path);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('trace_backend_unavailable');
    expect(res.body.error.message).toContain(`unreachable: Jaeger at ${deadUrl}`);
  });

  it.each([
    { query: 'since=yesterday', param: 'since' },
    { query: 'since=31d', param: 'since' },
    { query: 'since=0m', param: 'since' },
    { query: 'limit=0', param: 'limit' },
    { query: 'limit=1001', param: 'limit' },
    { query: 'limit=ten', param: 'limit' },
    { query: 'limit=-5', param: 'limit' },
  ])('400 for $query', async ({ query, param }) => {
    const res = await get(dead, `/v1/traces?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
  });

  it('needs the gateway key', async () => {
    expect((await get(unset, '/v1/traces/x', 'wrong')).status).toBe(401);
  });
});

describe('sidegate trace / traces', () => {
  const io = (env: NodeJS.ProcessEnv = {}) => {
    const out = { stdout: '', stderr: '' };
    return { out, io: { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) }, env } };
  };

  it('exits 1 with the same message as the API when the backend is unset or unreachable', async () => {
    const a = io();
    expect(await runTraceCli(['some-trace'], a.io)).toBe(1);
    expect(a.out.stderr).toContain('SIDEGATE_TRACES_URL is not set');
    const b = io({ SIDEGATE_TRACES_URL: deadUrl });
    expect(await runTracesCli(['--since', '2h'], b.io)).toBe(1);
    expect(b.out.stderr).toContain(`unreachable: Jaeger at ${deadUrl}`);
  });

  it.each([[[]], [['a', 'b']], [['a', '--nope']], [['a', '--traces-url']]])('trace %j exits 2 with usage', async (argv) => {
    const a = io();
    expect(await runTraceCli(argv, a.io)).toBe(2);
    expect(a.out.stderr).toContain('usage: sidegate trace');
  });

  it.each([[['--since', 'soon']], [['--limit', '0']], [['extra']]])('traces %j exits 2 with usage', async (argv) => {
    const a = io();
    expect(await runTracesCli(argv, a.io)).toBe(2);
    expect(a.out.stderr).toContain('usage: sidegate traces');
  });
});
