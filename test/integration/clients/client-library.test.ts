/**
 * `sidegate/client` against the real gateway and emulator, with the real OTel SDK exporting into
 * memory: options reach the gateway as headers (seen on the request span), per-call options
 * override for one call only, the gateway routes (logs, feedback) work, and no key leaks.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient, createHeaders, sidegate } from '../../../src/client/index.js';
import { createTelemetry } from '../../../src/telemetry/create-telemetry.js';
import { mapSpanId, mapTraceId } from '../../../src/telemetry/map-id.js';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from '../harness.js';

const exporter = new InMemorySpanExporter();
let h: Harness;
beforeAll(async () => {
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none' },
    logger: () => {},
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  h = await startHarness({}, { telemetry });
});
afterAll(() => h.close());
beforeEach(() => {
  h.emulator.reset();
  exporter.reset();
});
const savedEnv = { ...process.env };
afterEach(() => {
  process.env = { ...savedEnv };
});

const requestSpans = () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
const ask = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: 'Hello' }] };

function client(extra: Parameters<typeof createClient>[0] = {}) {
  return createClient({ apiKey: GATEWAY_KEY, baseURL: `${h.gateway.url}/v1`, provider: 'google', providerKey: PROVIDER_KEY, clientOptions: { maxRetries: 0 }, ...extra });
}

describe('createClient', () => {
  it('is an openai client: completions, streams and embeddings keep the SDK types', async () => {
    const c = client();
    expect(c).toBeInstanceOf(OpenAI);
    const completion = await c.chat.completions.create(ask);
    expect(completion.choices[0]!.message.content).toBe('Echo: Hello');
    const stream = await c.chat.completions.create({ ...ask, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Echo: Hello');
    const embedded = await c.embeddings.create({ model: 'gemini-embedding-001', input: ['a', 'b'], dimensions: 4 });
    expect(embedded.data.map((d) => d.embedding.length)).toStrictEqual([4, 4]);
    const call = h.emulator.requests.find((r) => r.rpc === 'generateContent')!;
    expect(call.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
  });

  it('sends the constructor options as gateway headers', async () => {
    const c = client({
      traceId: 'run-42',
      spanId: 'my-span',
      parentSpanId: 'parent-span',
      spanName: 'summarise',
      metadata: { user_name: 'ana', attempt: 2 },
      config: { retry: { attempts: 1 } },
    });
    const { response } = await c.chat.completions.create(ask).withResponse();
    expect(response.headers.get('x-gateway-trace-id')).toBe('run-42');
    const [span] = requestSpans() as [ReadableSpan];
    expect(span.name).toBe('summarise');
    expect(span.spanContext().traceId).toBe(mapTraceId('run-42'));
    expect(span.spanContext().spanId).toBe(mapSpanId('my-span'));
    expect(span.parentSpanContext?.spanId).toBe(mapSpanId('parent-span'));
    expect(span.attributes['gateway.metadata.user_name']).toBe('ana');
    expect(span.attributes['gateway.metadata.attempt']).toBe('2');
  });

  it('applies per-call options to that call only, both forms, never sticky', async () => {
    const c = client({ traceId: 'base-trace', metadata: { team: 'a' } });
    await c.chat.completions.create(ask, sidegate({ traceId: 'call-trace', spanName: 'one-off' }));
    await c.chat.completions.create(ask, { sidegate: { traceId: 'other-call' } } as never);
    await c.chat.completions.create(ask);
    const spans = requestSpans();
    expect(spans.map((s) => s.spanContext().traceId)).toStrictEqual([mapTraceId('call-trace'), mapTraceId('other-call'), mapTraceId('base-trace')]);
    expect(spans.map((s) => s.name)).toStrictEqual(['one-off', 'chat gemini-2.5-flash', 'chat gemini-2.5-flash']);
    expect(spans.every((s) => s.attributes['gateway.metadata.team'] === 'a')).toBe(true);
  });

  it('takes the gateway key from SIDEGATE_API_KEY, then PORTKEY_API_KEY; without one it says so without printing keys', async () => {
    delete process.env.SIDEGATE_API_KEY;
    process.env.PORTKEY_API_KEY = GATEWAY_KEY;
    const viaPortkeyEnv = createClient({ baseURL: `${h.gateway.url}/v1`, provider: 'google', providerKey: PROVIDER_KEY });
    expect((await viaPortkeyEnv.chat.completions.create(ask)).choices).toHaveLength(1);
    process.env.SIDEGATE_API_KEY = 'wrong-gateway-key-000';
    const viaSidegateEnv = createClient({ baseURL: `${h.gateway.url}/v1`, provider: 'google', providerKey: PROVIDER_KEY, clientOptions: { maxRetries: 0 } });
    const err = await viaSidegateEnv.chat.completions.create(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(String(err)).not.toContain('wrong-gateway-key-000');
    expect(String(err)).not.toContain(PROVIDER_KEY);
    delete process.env.SIDEGATE_API_KEY;
    delete process.env.PORTKEY_API_KEY;
    expect(() => createClient({ providerKey: PROVIDER_KEY })).toThrow('sidegate: no gateway key; pass apiKey or set SIDEGATE_API_KEY (or PORTKEY_API_KEY)');
  });

  it('sends no Authorization without a provider key, so a virtual key or config supplies it', async () => {
    const seen: Array<string | null> = [];
    const c = createClient({
      apiKey: GATEWAY_KEY,
      baseURL: `${h.gateway.url}/v1`,
      provider: 'google',
      clientOptions: {
        maxRetries: 0,
        fetch: async (url, init) => {
          seen.push(new Headers(init?.headers).get('authorization'));
          return fetch(url, init);
        },
      },
    });
    const err = await c.chat.completions.create(ask).catch((e: unknown) => e);
    expect(seen).toStrictEqual([null]);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
  });

  it('defaults the base URL to http://localhost:8787/v1, ignoring OPENAI_BASE_URL', () => {
    process.env.OPENAI_BASE_URL = 'http://elsewhere.invalid/v1';
    expect(createClient({ apiKey: 'k' }).baseURL).toBe('http://localhost:8787/v1');
  });
});

describe('client.logs and client.feedback', () => {
  it('insert logs and record feedback through the gateway routes', async () => {
    const c = client();
    const inserted = await c.logs.insert([
      { request: { method: 'POST', url: 'https://tool.example/search' }, response: { status: 200, response_time: 12 }, metadata: { traceId: 'agent-run', spanId: 'tool-1', spanName: 'search' } },
    ]);
    expect(inserted.status).toBe('success');
    expect(inserted.log_ids).toHaveLength(1);
    const created = await c.feedback.create({ trace_id: 'agent-run', value: 5, metadata: { source: 'thumbs' } });
    expect(created).toStrictEqual({ status: 'success', message: 'feedback recorded', feedback_ids: [expect.any(String)] });
    const updated = await c.feedback.update(created.feedback_ids[0]!, { value: -2, weight: 0.5 });
    expect(updated.feedback_ids).toStrictEqual(created.feedback_ids);
    const names = exporter.getFinishedSpans().map((s) => s.name);
    expect(names).toStrictEqual(['search', 'feedback', 'feedback']);
    expect(exporter.getFinishedSpans().every((s) => s.spanContext().traceId === mapTraceId('agent-run'))).toBe(true);
  });

  it('surfaces a 400 as the SDK error naming the field', async () => {
    const err = await client().feedback.create({ trace_id: 't', value: 11 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('value');
  });
});

describe('client.traces', () => {
  it('reaches GET /v1/traces/{id}: a 503 naming the unset backend surfaces as the SDK error', async () => {
    const err = await client().traces.get('agent-run').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((err as Error).message).toContain('SIDEGATE_TRACES_URL');
  });
});

describe('createHeaders with another HTTP client', () => {
  it('drives a plain fetch', async () => {
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...createHeaders({ apiKey: GATEWAY_KEY, provider: 'google', providerKey: PROVIDER_KEY, traceId: 'fetch-trace' }) },
      body: JSON.stringify(ask),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-trace-id')).toBe('fetch-trace');
  });
});
