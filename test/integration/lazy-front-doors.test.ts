/**
 * The front doors other than chat completions are imported on their first request
 * (server/lazy-routes.ts). One fresh gateway: each test is the FIRST request to its group, through
 * real HTTP (the official `openai` SDK where it has the call), and must get the answer an eagerly
 * built route gives: a broken dynamic import, a route missing from the declared table or deps
 * wired wrongly in start.ts fail here as a 500 or a wrong answer.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { GATEWAY_KEY, startHarness, type Harness } from './harness.js';

const ADMIN_KEY = 'lazy-admin-key-0123456789';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const exporter = new InMemorySpanExporter();
let h: Harness;
let dataDir: string;
let deadTracesUrl: string;
const logged: string[] = [];

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sidegate-lazy-'));
  deadTracesUrl = `http://127.0.0.1:${await closedPort()}`;
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none' },
    logger: () => {},
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  h = await startHarness({ dataDir, adminKey: ADMIN_KEY, tracesUrl: deadTracesUrl }, { telemetry, log: (line) => logged.push(line) });
});
afterAll(async () => {
  await h?.close();
  await rm(dataDir, { recursive: true, force: true });
  // No first request anywhere above was answered by the app's generic error path.
  expect(logged).toStrictEqual([]);
});

async function call(method: string, path: string, body?: unknown, key = GATEWAY_KEY) {
  const res = await fetch(`${h.gateway.url}${path}`, {
    method,
    headers: { ...h.headers, 'x-gateway-api-key': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

describe('front doors loaded on their first request', () => {
  it('an unknown path next to a lazy one is a 404, a wrong method a 405', async () => {
    expect(await call('GET', '/v1/responsesx')).toMatchObject({ status: 404, body: { error: { code: 'unknown_route' } } });
    expect(await call('PATCH', '/v1/responses/resp_1')).toMatchObject({ status: 405, body: { error: { code: 'method_not_allowed' } } });
  });

  it('embeddings: two first requests at once both answer', async () => {
    const [a, b] = await Promise.all([
      h.client.embeddings.create({ model: 'gemini-embedding-001', input: 'one', dimensions: 4, encoding_format: 'float' }),
      h.client.embeddings.create({ model: 'gemini-embedding-001', input: ['two', 'three'], dimensions: 4, encoding_format: 'float' }),
    ]);
    expect(a.data.map((d) => d.embedding.length)).toStrictEqual([4]);
    expect(b.data.map((d) => d.embedding.length)).toStrictEqual([4, 4]);
  });

  it('Responses: create, then read back', async () => {
    const r = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'Say hi' });
    expect(r.object).toBe('response');
    expect(r.status).toBe('completed');
    expect(r.output_text.length).toBeGreaterThan(0);
    const again = await h.client.responses.retrieve(r.id);
    expect(again.id).toBe(r.id);
  });

  it('models: the list', async () => {
    const list = await h.client.models.list();
    expect(list.data.length).toBeGreaterThan(0);
    expect(list.data[0]).toMatchObject({ object: 'model' });
  });

  it('files: an upload', async () => {
    const created = await h.client.files.create({ file: await toFile(PNG, 'dot.png', { type: 'image/png' }), purpose: 'user_data' });
    expect(created).toMatchObject({ object: 'file', filename: 'dot.png', bytes: PNG.length, mime_type: 'image/png' });
  });

  it('cached contents: the (empty) list of caches', async () => {
    expect(await call('GET', '/v1/cached_contents')).toStrictEqual({ status: 200, body: { object: 'list', data: [] } });
  });

  it('prompts: the admin creates a template, then it renders', async () => {
    const admin = new OpenAI({ baseURL: `${h.gateway.url}/v1`, apiKey: ADMIN_KEY, maxRetries: 0 });
    const created = await admin.post('/prompts', {
      body: { id: 'greet', model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hello {{name}}' }] },
    });
    expect(created).toMatchObject({ object: 'prompt', id: 'greet', version: 1 });
    const rendered = await call('POST', '/v1/prompts/greet/render', { variables: { name: 'Ada' } });
    expect(rendered).toMatchObject({ status: 200, body: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hello Ada' }] } });
  });

  it('logs: one log becomes one span', async () => {
    exporter.reset();
    const res = await call('POST', '/v1/logs', { request: { body: { model: 'gemini-2.5-flash', messages: [] } }, metadata: { spanName: 'lazy-log' } });
    expect(res).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(exporter.getFinishedSpans().map((s) => s.name)).toStrictEqual(['lazy-log']);
  });

  it('feedback: recorded as a span', async () => {
    exporter.reset();
    const res = await call('POST', '/v1/feedback', { trace_id: 'lazy-trace', value: 5 });
    expect(res).toMatchObject({ status: 200, body: { message: 'feedback recorded' } });
    expect(exporter.getFinishedSpans().map((s) => s.name)).toStrictEqual(['feedback']);
  });

  it('the Traces view: the sign-in page, then a page over the backend from settings (here unreachable, a page naming it)', async () => {
    const form = await fetch(`${h.gateway.url}/ui/`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('action="/ui/sign-in"');
    const signIn = await fetch(`${h.gateway.url}/ui/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: GATEWAY_KEY, next: '/ui/traces' }).toString(),
    });
    expect(signIn.status).toBe(303);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    const list = await fetch(`${h.gateway.url}/ui/traces`, { headers: { cookie } });
    expect(list.status).toBe(503);
    expect(await list.text()).toContain(`Jaeger at ${deadTracesUrl}`);
  });

  it('traces: the backend from settings is asked (here unreachable, a 503 naming it)', async () => {
    const res = await call('GET', '/v1/traces/some-trace');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('trace_backend_unavailable');
    expect(res.body.error.message).toContain(`Jaeger at ${deadTracesUrl}`);
  });
});
