/**
 * The Traces view through real HTTP (issue 21 item 2), with a trace reader serving fixed spans:
 * the sign-in and its cookie, 401 for every page and asset without it, the security headers, the
 * escaping of span values in the real pages, sign-out, the pages for an unset or unreachable
 * backend, and SIDEGATE_UI=false. The real-browser run against Jaeger is test/e2e/traces-view.test.ts.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleSpans, TRACE_ID, XSS } from '../../src/traces-view/__fixtures__/example-spans.js';
import type { TraceReader } from '../../src/traces/trace-reader.js';
import { GATEWAY_KEY, startHarness, type Harness } from './harness.js';

const ADMIN_KEY = 'traces-view-admin-key-0123456789';
const reader: TraceReader = {
  description: 'fixed spans',
  getTrace: async (id) => (id === TRACE_ID ? exampleSpans() : null),
  findTraces: async () => [exampleSpans(), exampleSpans('b'.repeat(32)).slice(0, 1)],
};
const logged: string[] = [];
let h: Harness;
let unset: Harness;
let dead: Harness;
let off: Harness;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const log = (line: string) => logged.push(line);
  [h, unset, dead, off] = await Promise.all([
    startHarness({ adminKey: ADMIN_KEY, jaegerUiUrl: 'http://localhost:16686' }, { traceReader: reader, log }),
    startHarness({}, { log }),
    startHarness({ tracesUrl: `http://127.0.0.1:${await closedPort()}` }, { log }),
    startHarness({ ui: false }, { traceReader: reader, log }),
  ]);
});
afterAll(async () => {
  await Promise.all([h, unset, dead, off].map((x) => x?.close()));
  expect(logged).toStrictEqual([]);
});

const PAGES = ['/ui/traces', `/ui/traces/${TRACE_ID}`, `/ui/traces/${TRACE_ID}/json`, `/ui/traces/${TRACE_ID}/attributes?span=0000000000000004`, '/ui/prompts/greet', '/ui/traces?sort=cost&failed=1'];
const ASSETS = ['/ui/assets/view.css', '/ui/assets/view.js'];

async function get(gw: Harness, path: string, cookie?: string) {
  const res = await fetch(`${gw.gateway.url}${path}`, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function signIn(gw: Harness, key: string, next = '/ui/traces') {
  const res = await fetch(`${gw.gateway.url}/ui/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ key, next }).toString(),
  });
  return { status: res.status, location: res.headers.get('location'), setCookie: res.headers.get('set-cookie'), text: await res.text() };
}

const cookieOf = (setCookie: string | null) => (setCookie ?? '').split(';')[0]!;

describe('the Traces view without a session', () => {
  it.each(PAGES)('%s answers 401 with the sign-in form', async (path) => {
    const res = await get(h, path);
    expect(res.status).toBe(401);
    expect(res.text).toContain('<form method="post" action="/ui/sign-in">');
    expect(res.text).not.toContain(XSS.slice(1));
  });

  it.each(ASSETS)('%s answers 401', async (path) => {
    const res = await get(h, path);
    expect(res.status).toBe(401);
    expect(res.text).toBe('sign in at /ui/\n');
  });

  it('/ui/ shows the form, /ui redirects to it; the form comes back to the page asked for', async () => {
    expect((await get(h, '/ui/')).text).toContain('name="key" type="password"');
    expect((await get(h, '/ui')).headers.get('location')).toBe('/ui/');
    expect((await get(h, '/ui/traces?sort=cost')).text).toContain('name="next" value="/ui/traces?sort=cost"');
  });
});

describe('sign-in', () => {
  it('refuses a wrong key with 401 and no cookie', async () => {
    const res = await signIn(h, 'not-a-key');
    expect(res.status).toBe(401);
    expect(res.setCookie).toBeNull();
    expect(res.text).toContain('That key is not valid here.');
    expect(res.text).not.toContain('not-a-key');
  });

  it.each([
    ['a gateway key', GATEWAY_KEY],
    ['the admin key', ADMIN_KEY],
  ])('with %s sets a signed HttpOnly, SameSite=Strict cookie on /ui that is not the key', async (_name, key) => {
    const res = await signIn(h, key, `/ui/traces/${TRACE_ID}`);
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/ui/traces/${TRACE_ID}`);
    expect(res.setCookie).toMatch(/^sidegate_ui=v1\.[\w.-]+; Path=\/ui; HttpOnly; SameSite=Strict; Max-Age=28800$/);
    expect(res.setCookie).not.toContain(key);
    expect((await get(h, '/ui/traces', cookieOf(res.setCookie))).status).toBe(200);
  });

  it('never redirects off the view after signing in', async () => {
    for (const next of ['https://evil.example/', '//evil.example/ui/', '/v1/traces', '/ui/\\evil']) {
      expect((await signIn(h, GATEWAY_KEY, next)).location).toBe('/ui/traces');
    }
  });

  it('refuses a cross-site form post', async () => {
    const res = await fetch(`${h.gateway.url}/ui/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: `key=${GATEWAY_KEY}`,
    });
    expect(res.status).toBe(403);
  });

  it('sign-out drops the cookie and the session it held', async () => {
    const cookie = cookieOf((await signIn(h, GATEWAY_KEY)).setCookie);
    const out = await fetch(`${h.gateway.url}/ui/sign-out`, { method: 'POST', redirect: 'manual', headers: { cookie } });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toBe('sidegate_ui=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0');
    expect((await get(h, '/ui/traces', cookie)).status).toBe(401);
  });
});

describe('the pages with a session', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = cookieOf((await signIn(h, GATEWAY_KEY)).setCookie);
  });

  it.each([...PAGES, ...ASSETS])('%s answers 200 with the security headers', async (path) => {
    const res = await get(h, path, cookie);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.text).not.toContain(GATEWAY_KEY);
  });

  it('escapes span names and attributes in the list and the trace page', async () => {
    for (const path of ['/ui/traces', `/ui/traces/${TRACE_ID}`]) {
      const { text } = await get(h, path, cookie);
      expect(text).not.toContain('<img src=x');
      expect(text).not.toMatch(/<script>alert/);
      expect(text).not.toContain('onmouseover="alert');
      // No inline script at all: the only script is the gateway's own file.
      expect([...text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toStrictEqual(['<script src="/ui/assets/view.js" defer>']);
    }
    expect((await get(h, `/ui/traces/${TRACE_ID}`, cookie)).text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('links the trace to Jaeger and to its JSON, which is the API summary', async () => {
    const { text } = await get(h, `/ui/traces/${TRACE_ID}`, cookie);
    expect(text).toContain(`href="http://localhost:16686/trace/${TRACE_ID}"`);
    const json = await get(h, `/ui/traces/${TRACE_ID}/json`, cookie);
    expect(json.headers.get('content-disposition')).toBe(`attachment; filename="trace-${TRACE_ID}.json"`);
    expect(JSON.parse(json.text)).toMatchObject({ trace_id: TRACE_ID, totals: { llm_calls: 2, failed_attempts: 1 } });
  });

  it("serves one span's attributes, escaped, for the script that opens a span of a big trace", async () => {
    const { status, text } = await get(h, `/ui/traces/${TRACE_ID}/attributes?span=0000000000000005`, cookie);
    expect(status).toBe(200);
    expect(text).toMatch(/^<dl>/);
    expect(text).toContain('<dt>note&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;</dt>');
    expect((await get(h, `/ui/traces/${TRACE_ID}/attributes?span=ffffffffffffffff`, cookie)).status).toBe(404);
  });

  it('answers an unknown trace with a 404 page and a bad filter with a 400 page naming it', async () => {
    const missing = await get(h, `/ui/traces/${'c'.repeat(32)}`, cookie);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('not found in fixed spans');
    const bad = await get(h, '/ui/traces?since=forever', cookie);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('since must be a duration');
  });
});

describe('the backend', () => {
  it('unset: a page saying to set SIDEGATE_TRACES_URL, not a 500', async () => {
    const cookie = cookieOf((await signIn(unset, GATEWAY_KEY)).setCookie);
    for (const path of ['/ui/traces', `/ui/traces/${TRACE_ID}`, '/ui/prompts/greet']) {
      const res = await get(unset, path, cookie);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('No trace backend configured');
      expect(res.text).toContain('<code>SIDEGATE_TRACES_URL</code>');
    }
  });

  it('unreachable: a page naming the backend', async () => {
    const cookie = cookieOf((await signIn(dead, GATEWAY_KEY)).setCookie);
    const res = await get(dead, '/ui/traces', cookie);
    expect(res.status).toBe(503);
    expect(res.text).toContain('The trace backend cannot be read');
    expect(res.text).toContain('trace backend unreachable: Jaeger at http://127.0.0.1:');
  });
});

describe('SIDEGATE_UI=false', () => {
  it.each(['/ui/', '/ui/traces', ...ASSETS])('%s is not a route', async (path) => {
    expect((await get(off, path)).status).toBe(404);
  });
});
