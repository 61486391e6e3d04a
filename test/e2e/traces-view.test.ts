/**
 * The Traces view in a real browser over a real Jaeger (issue 21 item 5): headless Chromium
 * (Debian's package, driven by playwright-core) signs in, finds a trace made of a logged app step,
 * a chat call whose first attempt failed and was retried (the emulator's fault script), a logged
 * LLM call, a span named like an XSS payload and two feedback scores; checks its cost and feedback
 * mean against the API's summary, narrows the list with filters, opens the trace, reads the
 * waterfall in order, opens a span, and checks that nothing ran from the payload, that no request
 * left the gateway's origin, and that without the cookie every page and asset is refused. A
 * 2,000-span trace is loaded and its render time in the browser printed. Screenshots of each page
 * go to docs/images/ (the README shows two of them).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleError } from '../../src/emulator/index.js';
import { mapTraceId } from '../../src/telemetry/map-id.js';
import type { SpanNode, TraceSummary } from '../../src/traces/summarize-trace.js';
import { formatCost } from '../../src/traces-view/format-values.js';
import { findChromium, launchChromium } from './browser.js';
import { startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { ensureBinary, readTrace, startJaeger, type Jaeger } from './otel-binaries.js';

const GATEWAY_KEY = 'sg-e2e-view-key-0123456789abcdef';
const PROVIDER_KEY = 'AIzaE2eViewProviderKey0123456789abcd';
const SERVICE = 'sidegate-view-e2e';
const XSS = '<img src=x onerror=alert(1)>';
const BIG_SPANS = 2000;
const ROOT = new URL('../..', import.meta.url).pathname;
const IMAGES = join(ROOT, 'docs/images');

const binary = await ensureBinary('jaeger');
const chromiumPath = findChromium();

/** What the page scripts below read of a DOM element (the project compiles without the DOM lib). */
interface El {
  dataset: Record<string, string | undefined>;
  hidden: boolean;
  querySelector(selector: string): { textContent: string | null } | null;
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
}

const flatten = (nodes: readonly SpanNode[]): SpanNode[] => nodes.flatMap((n) => [n, ...flatten(n.children)]);

describe.skipIf(binary === null || chromiumPath === null)('the Traces view in a real browser over a real Jaeger', () => {
  let jaeger: Jaeger;
  let under: GatewayUnderTest;
  let dir: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const requested: string[] = [];
  const dialogs: string[] = [];
  const run = Date.now();
  const main = mapTraceId(`view-main-${run}`);
  const bob = mapTraceId(`view-bob-${run}`);
  const big = mapTraceId(`view-big-${run}`);

  async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    expect(res.status, `${method} ${path}`).toBe(200);
    return res.json();
  }

  /** The main trace: an app step, a retried chat call, a logged LLM call, an XSS-named log, two feedback scores. */
  async function sendMainTrace(): Promise<void> {
    const t = `view-main-${run}`;
    const t0 = Date.now();
    // The app's own step (logged last, once its length is known) holds a logged LLM call, an
    // XSS-named step and a chat call through the gateway whose first attempt fails and is retried.
    under.emulator.enqueue({ status: 503, body: googleError(503, 'The model is overloaded.') });
    await under.client.chat.completions.create(
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Draft a reply to the ticket.' }] },
      {
        headers: {
          'x-gateway-trace-id': t,
          'x-gateway-parent-span-id': 'session',
          'x-gateway-metadata': JSON.stringify({ user: 'u-42' }),
          'x-gateway-config': JSON.stringify({ retry: { attempts: 2 } }),
        },
      },
    );
    await api('POST', '/v1/logs', [
      {
        request: {},
        response: { response_time: Date.now() - t0 + 700 },
        metadata: { traceId: t, spanId: 'session', spanName: 'support chat', user: 'u-42', team: 'search' },
        created_at: t0 - 600,
      },
      {
        request: { body: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'summarise the ticket' }] } },
        response: {
          status: 200,
          response_time: 380,
          body: {
            id: 'x',
            model: 'gemini-2.5-flash',
            choices: [{ index: 0, message: { role: 'assistant', content: 'The user cannot sign in.' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1800, completion_tokens: 240, total_tokens: 2040 },
          },
        },
        metadata: { traceId: t, spanId: 'summarise', parentSpanId: 'session' },
        created_at: t0 - 560,
      },
      { request: {}, response: { response_time: 60 }, metadata: { traceId: t, spanId: 'xss', parentSpanId: 'session', spanName: XSS }, created_at: t0 - 150 },
    ]);
    await api('POST', '/v1/feedback', { trace_id: t, value: 9, weight: 0.5, metadata: { user: 'u-42' } });
    await api('POST', '/v1/feedback', { trace_id: t, value: 6 });
  }

  /** Other traces for the list: bob's plain call, carol's prompt calls (versions 1 and 2). */
  async function sendOtherTraces(): Promise<void> {
    await under.client.chat.completions.create(
      { model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-gateway-trace-id': `view-bob-${run}`, 'x-gateway-metadata': JSON.stringify({ user: 'bob', team: 'ads' }) } },
    );
    for (const [version, name, score] of [[1, 'Ada', 3], [2, 'Bob', 8], [2, 'Cy', 4]] as const) {
      await under.client.post('/prompts/greet/completions', {
        body: { version, variables: { name } },
        headers: { 'x-gateway-trace-id': `view-prompt-${run}-${name}`, 'x-gateway-metadata': JSON.stringify({ user: 'carol' }) },
      });
      await api('POST', '/v1/feedback', { trace_id: `view-prompt-${run}-${name}`, value: score });
    }
  }

  /** 2,000 log spans in one trace: an agent run with a 10-level chain and steps of tools and sub-calls. */
  async function sendBigTrace(): Promise<void> {
    const t = `view-big-${run}`;
    const logs: Array<{ spanId: string; parent?: string; name: string }> = [{ spanId: 'root', name: `agent run (${BIG_SPANS} spans)` }];
    for (let d = 0; d < 10; d++) logs.push({ spanId: `deep-${d}`, parent: d === 0 ? 'root' : `deep-${d - 1}`, name: `plan level ${d}` });
    for (let s = 0; logs.length < BIG_SPANS; s++) {
      logs.push({ spanId: `step-${s}`, parent: 'root', name: `step ${s}` });
      for (let tool = 0; tool < 8 && logs.length < BIG_SPANS; tool++) {
        logs.push({ spanId: `tool-${s}-${tool}`, parent: `step-${s}`, name: `tool ${tool}` });
        for (let sub = 0; sub < 4 && logs.length < BIG_SPANS; sub++) logs.push({ spanId: `sub-${s}-${tool}-${sub}`, parent: `tool-${s}-${tool}`, name: `fetch ${sub}` });
      }
    }
    const start = run - 60_000;
    const body = logs.map((l, i) => ({
      request: { url: 'https://tools.internal/run', method: 'POST' },
      response: { status: 200, response_time: l.spanId === 'root' ? 50_000 : 20 + (i % 7) * 3 },
      metadata: { traceId: t, spanId: l.spanId, spanName: l.name, ...(l.parent ? { parentSpanId: l.parent } : {}) },
      created_at: start + (l.spanId === 'root' ? 0 : 10 + i * 20),
    }));
    for (let i = 0; i < body.length; i += 1000) await api('POST', '/v1/logs', body.slice(i, i + 1000));
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sidegate-view-e2e-'));
    await mkdir(join(dir, 'prompts/greet'), { recursive: true });
    await writeFile(join(dir, 'prompts/greet/1.json'), JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Greet {{name}}.' }] }));
    await writeFile(join(dir, 'prompts/greet/2.json'), JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Say hi to {{name}} in one line.' }] }));
    jaeger = await startJaeger(binary as string);
    under = await startGatewayUnderTest({
      otlpEndpoint: jaeger.otlpHttp,
      serviceName: SERVICE,
      gatewayKey: GATEWAY_KEY,
      providerKey: PROVIDER_KEY,
      env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
      settings: { tracesUrl: jaeger.query, dataDir: dir, promptsDir: join(dir, 'prompts'), jaegerUiUrl: 'http://localhost:16686', uiColumns: ['user', 'team'] },
    });
    origin = under.gateway.url;
    await sendMainTrace();
    await sendOtherTraces();
    await sendBigTrace();
    await under.telemetry.forceFlush();
    await readTrace(jaeger.query, main, 8);
    await readTrace(jaeger.query, big, BIG_SPANS, 30_000);

    browser = await launchChromium(chromiumPath as string);
    context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    context.on('request', (r) => requested.push(r.url()));
    page = await context.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await mkdir(IMAGES, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await under?.close();
    await jaeger?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('signs in at /ui/ and lists the trace with its cost and feedback mean', async () => {
    await page.goto(`${origin}/ui/`);
    await page.screenshot({ path: join(IMAGES, 'traces-sign-in.png') });
    await page.fill('input[name=key]', GATEWAY_KEY);
    await page.click('button[type=submit]');
    await page.waitForURL(`${origin}/ui/traces`);
    const cookies = await context.cookies();
    expect(cookies.map((c) => [c.name, c.path, c.httpOnly, c.sameSite])).toStrictEqual([['sidegate_ui', '/ui', true, 'Strict']]);
    expect(cookies[0]!.value).not.toContain(GATEWAY_KEY);

    const summary = (await api('GET', `/v1/traces/${main}`)) as TraceSummary;
    expect(summary.totals).toMatchObject({ llm_calls: 3, failed_attempts: 1, feedback_count: 2, feedback_weighted_mean: 7 });
    const row = page.locator(`tr[data-trace-id="${main}"]`);
    const cells = await row.locator('td').allInnerTexts();
    expect(cells.slice(1)).toStrictEqual([
      'support chat',
      expect.any(String),
      '3',
      '1',
      `${summary.totals.input_tokens.toLocaleString('en-US')} / ${summary.totals.output_tokens.toLocaleString('en-US')}`,
      formatCost(summary.totals.cost_usd),
      '2 · mean 7',
      '',
      'u-42',
      'search',
    ]);
    expect(summary.totals.cost_usd).toBeGreaterThan(0);
    const ids = await page.locator('tr[data-trace-id]').evaluateAll((rows) => rows.map((r) => (r as El).dataset.traceId));
    expect(ids).toEqual(expect.arrayContaining([main, bob, big]));
    expect(ids).toHaveLength(6);
    await page.screenshot({ path: join(IMAGES, 'traces-list.png'), fullPage: true });
  });

  it('narrows the list with filters kept in the URL', async () => {
    const shown = () => page.locator('tr[data-trace-id]').evaluateAll((rows) => rows.map((r) => (r as El).dataset.traceId));
    await page.fill('input[name=meta]', 'user=u-42');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/meta=user%3Du-42/);
    expect(await shown()).toStrictEqual([main]);

    await page.goto(`${origin}/ui/traces?failed=1`);
    expect(await shown()).toStrictEqual([main]);
    await page.goto(`${origin}/ui/traces?model=gemini-2.5-pro`);
    expect(await shown()).toStrictEqual([bob]);
    await page.goto(`${origin}/ui/traces?prompt=greet&version=2`);
    expect(await shown()).toHaveLength(2);
    await page.goto(`${origin}/ui/traces?sort=duration`);
    expect((await shown())[0]).toBe(big);
  });

  it('opens the trace with a click: every span in order, the failed attempt marked, a span opens to its attributes', async () => {
    await page.goto(`${origin}/ui/traces?meta=user%3Du-42`);
    await page.click(`tr[data-trace-id="${main}"] td.name a`);
    await page.waitForURL(`${origin}/ui/traces/${main}?from=meta%3Duser%253Du-42`);

    const summary = (await api('GET', `/v1/traces/${main}`)) as TraceSummary;
    const stored = await readTrace(jaeger.query, main, 8);
    const order = flatten(summary.spans).map((n) => n.span_id);
    expect(order).toHaveLength(stored.length);
    const rows = page.locator('.waterfall details.span');
    expect(await rows.evaluateAll((els) => els.map((e) => (e as El).dataset.spanId))).toStrictEqual(order);
    expect(await rows.evaluateAll((els) => els.map((e) => !(e as El).hidden))).toStrictEqual(order.map(() => true));

    const failed = page.locator('.waterfall details.span.failed');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('.role').innerText()).toBe('attempt #1');
    expect(await failed.locator('.status').innerText()).toBe('error 503');
    const good = page.locator('.waterfall details.span.attempt:not(.failed)');
    expect(await good.locator('.role').innerText()).toMatch(/^attempt #2/);

    expect(await good.locator('.attrs').isVisible()).toBe(false);
    await good.locator('summary').first().click();
    await expect.poll(() => good.locator('.attrs').isVisible()).toBe(true);
    const attrs = await good.locator('.attrs').innerText();
    expect(attrs).toContain('gen_ai.usage.input_tokens');
    expect(attrs).toContain('gateway.cost.usd');
    expect(attrs).toContain('gen_ai.output.messages');
    expect(attrs).toContain('Echo: Draft a reply to the ticket.');
    expect(await page.locator('a', { hasText: 'Open in Jaeger' }).getAttribute('href')).toBe(`http://localhost:16686/trace/${main}`);
    expect(await page.locator('a', { hasText: 'Back to the list' }).getAttribute('href')).toBe('/ui/traces?meta=user%3Du-42');
    await page.screenshot({ path: join(IMAGES, 'trace.png'), fullPage: true });
  });

  it('shows the XSS span name as text and runs nothing', async () => {
    await page.goto(`${origin}/ui/traces/${main}`);
    const names = await page.locator('.waterfall details.span .text').allInnerTexts();
    expect(names).toContain(XSS);
    expect(await page.locator('img').count()).toBe(0);
    expect(dialogs).toStrictEqual([]);
  });

  it('compares the prompt versions and links each to the list', async () => {
    await page.goto(`${origin}/ui/prompts/greet?since=1h`);
    // version, requests, feedback mean (count): merged over the traces of each version
    const versions = await page
      .locator('tr[data-version]')
      .evaluateAll((rows) => rows.map((r) => [(r as El).dataset.version, (r as El).querySelectorAll('td')[1]!.textContent, (r as El).querySelectorAll('td')[10]!.textContent]));
    expect(versions).toStrictEqual([
      ['1', '1', '3 (1)'],
      ['2', '2', '6 (2)'],
    ]);
    await page.click('tr[data-version="2"] a');
    await page.waitForURL(`${origin}/ui/traces?prompt=greet&version=2`);
    await page.goto(`${origin}/ui/prompts/greet?since=1h`);
    await page.screenshot({ path: join(IMAGES, 'traces-prompt.png'), fullPage: true });
  });

  it(`renders a ${BIG_SPANS}-span trace with deep levels folded, and times it in the browser`, async () => {
    const timings: Array<{ server: number; browser: number; total: number }> = [];
    for (let i = 0; i < 3; i++) {
      await page.goto(`${origin}/ui/traces/${big}`);
      await page.waitForFunction("performance.getEntriesByType('navigation')[0].loadEventEnd > 0");
      // The browser's own Navigation Timing: the answer's first byte, then parsing, style, layout and the script until the load event.
      timings.push(
        await page.evaluate<{ server: number; browser: number; total: number }>(
          "(() => { const n = performance.getEntriesByType('navigation')[0]; return { server: n.responseStart - n.requestStart, browser: n.loadEventEnd - n.responseStart, total: n.loadEventEnd - n.startTime }; })()",
        ),
      );
    }
    const rows = page.locator('.waterfall details.span');
    expect(await rows.count()).toBe(BIG_SPANS);
    // plan levels 7, 8 and 9 sit deeper than the fold (depth 6): hidden until their fold button is clicked
    const hidden = () => rows.evaluateAll((els) => els.filter((e) => (e as El).hidden).map((e) => e.querySelector('.text')!.textContent));
    expect(await hidden()).toStrictEqual(['plan level 6', 'plan level 7', 'plan level 8', 'plan level 9']);
    await page.click('button.fold[aria-expanded="false"]');
    expect(await hidden()).toStrictEqual([]);
    // Past 300 spans a span's attributes are fetched when it opens.
    const step = page.locator('.waterfall details.span', { hasText: 'step 3' }).first();
    await step.locator('summary').click();
    await expect.poll(() => step.locator('.attrs').innerText()).toContain('gateway.log.id');
    const median = (k: 'server' | 'browser' | 'total') => timings.map((t) => t[k]).sort((a, b) => a - b)[1]!.toFixed(0);
    // A figure to report, not an assertion (tests never assert wall-clock time; the machine is shared).
    console.log(
      `[traces-view] ${BIG_SPANS}-span trace page, median of 3 loads in Chromium: ${median('browser')} ms from first byte to load event (parse, style, layout, script), ` +
        `${median('server')} ms to first byte (Jaeger read + summary + HTML), ${median('total')} ms in all; each: ${JSON.stringify(timings.map((t) => Object.fromEntries(Object.entries(t).map(([k, v]) => [k, Math.round(v)]))))}`,
    );
  });

  it('sent no request to another origin', () => {
    expect(requested).toEqual(expect.arrayContaining([`${origin}/ui/assets/view.css`, `${origin}/ui/assets/view.js`]));
    expect(requested.filter((url) => !url.startsWith(`${origin}/`))).toStrictEqual([]);
  });

  it('without the cookie answers every page and asset with 401 or the sign-in form', async () => {
    const stranger = await browser.newContext();
    const p = await stranger.newPage();
    const pages = ['/ui/traces', `/ui/traces/${main}`, `/ui/traces/${main}/json`, '/ui/prompts/greet', '/ui/traces?sort=cost'];
    for (const path of pages) {
      const res = await p.goto(`${origin}${path}`);
      expect(res?.status(), path).toBe(401);
      expect(await p.locator('form[action="/ui/sign-in"] input[name=key]').count(), path).toBe(1);
      expect(await p.content()).not.toContain('support chat');
    }
    for (const path of ['/ui/assets/view.css', '/ui/assets/view.js']) {
      const res = await p.goto(`${origin}${path}`);
      expect(res?.status(), path).toBe(401);
    }
    const signIn = await p.goto(`${origin}/ui/`);
    expect(signIn?.status()).toBe(200);
    expect(await p.locator('form[action="/ui/sign-in"]').count()).toBe(1);
    await stranger.close();
  });

  it('signs out: the cookie is dropped and the pages ask to sign in again', async () => {
    await page.goto(`${origin}/ui/traces`);
    await page.click('header form button[type=submit]');
    await page.waitForURL(`${origin}/ui/`);
    expect(await context.cookies()).toStrictEqual([]);
    const res = await page.goto(`${origin}/ui/traces`);
    expect(res?.status()).toBe(401);
  });
});
