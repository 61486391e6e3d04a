/**
 * `POST /v1/logs`, `POST /v1/feedback`, `PUT /v1/feedback/{id}` through real HTTP, with the real
 * OTel SDK exporting into memory: what the client gets back, and the spans that leave the process.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { mapSpanId, mapTraceId } from '../../src/telemetry/map-id.js';
import { computeCostUsd, DEFAULT_PRICING } from '../../src/telemetry/pricing.js';
import { GATEWAY_KEY, startHarness, type Harness } from './harness.js';

const exporter = new InMemorySpanExporter();
let h: Harness;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sidegate-logs-'));
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'false' },
    logger: () => {},
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  h = await startHarness({ dataDir }, { telemetry });
});
afterAll(async () => {
  await h.close();
  await rm(dataDir, { recursive: true, force: true });
});
beforeEach(() => exporter.reset());

const json = { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY };

async function post(path: string, body: unknown, method = 'POST', url = h.gateway.url) {
  const res = await fetch(`${url}${path}`, { method, headers: json, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const spans = () => exporter.getFinishedSpans();
const byName = (name: string) => spans().find((s) => s.name === name) as ReadableSpan;
const ns = (t: [number, number]) => t[0] * 1e9 + t[1];

const chatRequest = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, max_tokens: 50 };
const chatResponse = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gemini-2.5-flash',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 200 } },
};

describe('POST /v1/logs', () => {
  it('turns one log into one span with the caller’s ids, times, GenAI attributes, usage and cost', async () => {
    const created = Date.UTC(2026, 10, 23, 9, 0, 0, 250);
    const res = await post('/v1/logs', {
      request: { url: 'https://api.example.com/v1/chat/completions', method: 'post', body: chatRequest },
      response: { status: 200, body: chatResponse, response_time: 1234.5 },
      metadata: { traceId: 'my-trace', spanId: 'my-span', spanName: 'summarise', user: 'u-42' },
      created_at: new Date(created).toISOString(),
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.log_ids).toHaveLength(1);
    expect(res.body.log_ids[0]).toMatch(/^log-[0-9a-f-]{36}$/);

    expect(spans()).toHaveLength(1);
    const span = spans()[0] as ReadableSpan;
    expect(span.name).toBe('summarise');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.spanContext().traceId).toBe(mapTraceId('my-trace'));
    expect(span.spanContext().spanId).toBe(mapSpanId('my-span'));
    expect(span.parentSpanContext).toBeUndefined();
    expect(ns(span.startTime)).toBe(created * 1e6);
    expect(ns(span.endTime)).toBe(created * 1e6 + 1_234_500_000);
    const usage = { inputTokens: 1200, outputTokens: 300, reasoningTokens: 0, cachedInputTokens: 200 };
    expect(span.attributes).toStrictEqual({
      'gateway.log.id': res.body.log_ids[0],
      'gateway.trace_id': 'my-trace',
      'gateway.span_id': 'my-span',
      'http.request.method': 'POST',
      'url.full': 'https://api.example.com/v1/chat/completions',
      'http.response.status_code': 200,
      'gateway.metadata.user': 'u-42',
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 50,
      'gen_ai.output.type': 'text',
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.response.model': 'gemini-2.5-flash',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 300,
      'gen_ai.usage.cache_read.input_tokens': 200,
      'gateway.cost.usd': computeCostUsd(DEFAULT_PRICING, 'gemini-2.5-flash', usage),
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('names a non-chat log `log`, defaults its start to now − response_time, and marks status ≥ 400 as an error', async () => {
    const before = Date.now();
    const res = await post('/v1/logs', { request: { url: 'https://search.example.com/q' }, response: { status: 503, response_time: 40 } });
    expect(res.status).toBe(200);
    const span = byName('log');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.attributes['error.type']).toBe('503');
    expect(span.status).toStrictEqual({ code: SpanStatusCode.ERROR, message: 'HTTP 503' });
    expect(ns(span.endTime) - ns(span.startTime)).toBe(40_000_000);
    expect(ns(span.startTime) / 1e6).toBeGreaterThanOrEqual(before - 40 - 1);
    expect(span.attributes['gen_ai.operation.name']).toBeUndefined();
  });

  it('names a chat log without spanName `log {model}`', async () => {
    await post('/v1/logs', { request: { body: chatRequest } });
    expect(byName('log gemini-2.5-flash').attributes['gen_ai.request.model']).toBe('gemini-2.5-flash');
  });

  it('builds a 3-level tree from logs sent out of order in one batch', async () => {
    const log = (spanId: string, parentSpanId?: string) => ({
      request: {},
      metadata: { traceId: 'tree-trace', spanId, spanName: spanId, ...(parentSpanId ? { parentSpanId } : {}) },
    });
    const res = await post('/v1/logs', [log('leaf', 'middle'), log('root'), log('middle', 'root')]);
    expect(res.status).toBe(200);
    expect(res.body.log_ids).toHaveLength(3);
    const parentOf = (name: string) => byName(name).parentSpanContext?.spanId;
    expect(byName('root').parentSpanContext).toBeUndefined();
    expect(parentOf('middle')).toBe(mapSpanId('root'));
    expect(parentOf('leaf')).toBe(mapSpanId('middle'));
    for (const s of spans()) expect(s.spanContext().traceId).toBe(mapTraceId('tree-trace'));
  });

  it('files a log under a chat request named by the same string id, and gives a reused span id a fresh one with a link', async () => {
    const traceId = 'shared-trace-1';
    const completion = await h.client.chat.completions
      .create(
        { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-gateway-trace-id': traceId, 'x-gateway-span-id': 'request-span' } },
      )
      .withResponse();
    expect(completion.response.status).toBe(200);
    const requestSpan = spans().find((s) => s.kind === SpanKind.SERVER) as ReadableSpan;
    expect(requestSpan.spanContext().spanId).toBe(mapSpanId('request-span'));

    await post('/v1/logs', [
      { request: {}, metadata: { traceId, spanId: 'after-call', parentSpanId: 'request-span', spanName: 'child-of-request' } },
      { request: {}, metadata: { traceId, spanId: 'request-span', spanName: 'same-id-as-request' } },
    ]);
    const child = byName('child-of-request');
    expect(child.spanContext().traceId).toBe(requestSpan.spanContext().traceId);
    expect(child.parentSpanContext?.spanId).toBe(requestSpan.spanContext().spanId);
    const clash = byName('same-id-as-request');
    expect(clash.spanContext().spanId).not.toBe(mapSpanId('request-span'));
    expect(clash.attributes['gateway.span_id']).toBe('request-span');
    expect(clash.links.map((l) => l.context.spanId)).toStrictEqual([mapSpanId('request-span')]);
  });

  it('exports no credential from logged headers or URLs, and no body while content capture is off', async () => {
    const secrets = [
      'Bearer sk-proj-abcdefghijklmnopqrstuvwxyz012345',
      'sg-gateway-key-0123456789abcdef',
      'AIzaSyD-0123456789abcdefghijklmnopqrstu',
      'plain-api-key-value',
      'session=deadbeefcafe',
      'azure-key-98765',
      'tok_abcdefghijklmnopqrstuvwxyz0123456789ABCD',
    ];
    const res = await post('/v1/logs', {
      request: {
        url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=AIzaSyD-0123456789abcdefghijklmnopqrstu&alt=sse',
        method: 'POST',
        headers: {
          Authorization: secrets[0]!,
          'x-gateway-api-key': secrets[1]!,
          'x-goog-api-key': secrets[2]!,
          'api-key': secrets[3]!,
          Cookie: secrets[4]!,
          'x-custom-auth': secrets[5]!,
          'x-request-tag': secrets[6]!,
          'content-type': 'application/json',
        },
        body: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'my secret prompt' }] },
      },
      response: { status: 200, headers: { 'set-cookie': ['sid=abcdef'], 'x-ratelimit-remaining': '99' }, body: chatResponse },
    });
    expect(res.status).toBe(200);
    const exported = JSON.stringify(spans().map((s) => ({ attributes: s.attributes, events: s.events, name: s.name, links: s.links })));
    for (const secret of [...secrets, 'AIzaSyD', 'sid=abcdef', 'my secret prompt', 'hello']) expect(exported).not.toContain(secret);
    const span = spans()[0] as ReadableSpan;
    expect(span.attributes['http.request.header.content-type']).toStrictEqual(['application/json']);
    expect(span.attributes['http.response.header.x-ratelimit-remaining']).toStrictEqual(['99']);
    expect(span.attributes['url.full']).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?alt=sse');
  });

  describe('answers 400 naming the entry and field, and exports nothing', () => {
    const good = { request: {} };
    const rows: Array<{ name: string; body: unknown; param: string | null }> = [
      { name: 'not JSON', body: '{"request":', param: null },
      { name: 'a string', body: '"log"', param: null },
      { name: 'an empty batch', body: [], param: 'logs' },
      { name: 'more than 1,000 logs', body: Array.from({ length: 1001 }, () => good), param: 'logs' },
      { name: 'an entry that is not an object', body: [good, 7], param: 'logs[1]' },
      { name: 'no request', body: [good, {}], param: 'logs[1].request' },
      { name: 'a single log without request', body: { response: {} }, param: 'request' },
      { name: 'an unknown field', body: [{ ...good, extra: 1 }], param: 'logs[0].extra' },
      { name: 'request.url not a string', body: [{ request: { url: 5 } }], param: 'logs[0].request.url' },
      { name: 'request.method not a method', body: [{ request: { method: 'GET /x' } }], param: 'logs[0].request.method' },
      { name: 'request.headers not strings', body: [{ request: { headers: { a: 1 } } }], param: 'logs[0].request.headers.a' },
      { name: 'response not an object', body: [{ ...good, response: 'ok' }], param: 'logs[0].response' },
      { name: 'response.status out of range', body: [good, { ...good, response: { status: 99 } }], param: 'logs[1].response.status' },
      { name: 'response.status not an integer', body: [{ ...good, response: { status: 200.5 } }], param: 'logs[0].response.status' },
      { name: 'response.response_time negative', body: [{ ...good, response: { response_time: -1 } }], param: 'logs[0].response.response_time' },
      { name: 'response.headers not an object', body: [{ ...good, response: { headers: 'x' } }], param: 'logs[0].response.headers' },
      { name: 'metadata not an object', body: [{ ...good, metadata: [] }], param: 'logs[0].metadata' },
      { name: 'a metadata value not a string', body: [{ ...good, metadata: { user: 1 } }], param: 'logs[0].metadata.user' },
      { name: 'a blank traceId', body: [{ ...good, metadata: { traceId: ' ' } }], param: 'logs[0].metadata.traceId' },
      { name: 'a spanId not a string', body: [{ ...good, metadata: { spanId: 12 } }], param: 'logs[0].metadata.spanId' },
      { name: 'a too long parentSpanId', body: [{ ...good, metadata: { traceId: 't', parentSpanId: 'p'.repeat(257) } }], param: 'logs[0].metadata.parentSpanId' },
      { name: 'a blank spanName', body: [{ ...good, metadata: { spanName: '' } }], param: 'logs[0].metadata.spanName' },
      { name: 'more than 64 metadata keys', body: [{ ...good, metadata: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v'])) }], param: 'logs[0].metadata' },
      { name: 'a parentSpanId without traceId', body: [good, good, good, { request: {}, metadata: { parentSpanId: 'p' } }], param: 'logs[3].metadata.parentSpanId' },
      { name: 'a span that is its own parent', body: [{ request: {}, metadata: { traceId: 't', spanId: 'a', parentSpanId: 'a' } }], param: 'logs[0].metadata.parentSpanId' },
      {
        name: 'a cycle of parents',
        body: [
          { request: {}, metadata: { traceId: 't', spanId: 'a', parentSpanId: 'b' } },
          { request: {}, metadata: { traceId: 't', spanId: 'b', parentSpanId: 'a' } },
        ],
        param: 'logs[0].metadata.parentSpanId',
      },
      { name: 'created_at not ISO 8601', body: [{ ...good, created_at: '23/11/2026' }], param: 'logs[0].created_at' },
      { name: 'created_at negative', body: [{ ...good, created_at: -5 }], param: 'logs[0].created_at' },
    ];
    it.each(rows)('$name → param $param', async ({ body, param }) => {
      const res = await post('/v1/logs', body);
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.param).toBe(param);
      expect(spans()).toHaveLength(0);
    });
  });

  it('needs the gateway key', async () => {
    const res = await fetch(`${h.gateway.url}/v1/logs`, { method: 'POST', body: JSON.stringify({ request: {} }) });
    expect(res.status).toBe(401);
    expect(spans()).toHaveLength(0);
  });
});

describe('with content capture on', () => {
  it('exports logged bodies as GenAI content, with key-like text redacted', async () => {
    const captured = new InMemorySpanExporter();
    const on = await startHarness(
      { dataDir },
      {
        telemetry: createTelemetry({
          env: { OTEL_METRICS_EXPORTER: 'none', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
          logger: () => {},
          spanProcessorOverride: new SimpleSpanProcessor(captured),
        }),
      },
    );
    try {
      const res = await post(
        '/v1/logs',
        [
          { request: { body: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'my prompt, key sk-live-abcdefghijklmnop1234' }] } }, response: { body: chatResponse } },
          { request: { body: { query: 'weather', token: 'AIzaSyD-0123456789abcdefghijklmnopqrstu' } }, response: { body: 'sunny' } },
        ],
        'POST',
        on.gateway.url,
      );
      expect(res.status).toBe(200);
      const [chat, other] = captured.getFinishedSpans() as [ReadableSpan, ReadableSpan];
      expect(JSON.parse(chat.attributes['gen_ai.input.messages'] as string)).toStrictEqual([
        { role: 'user', parts: [{ type: 'text', content: 'my prompt, key [redacted]' }] },
      ]);
      expect(JSON.parse(chat.attributes['gen_ai.output.messages'] as string)).toStrictEqual([
        { role: 'assistant', parts: [{ type: 'text', content: 'hello' }], finish_reason: 'stop' },
      ]);
      expect(other.attributes['gateway.log.request.body']).toBe('{"query":"weather","token":"[redacted]"}');
      expect(other.attributes['gateway.log.response.body']).toBe('sunny');
    } finally {
      await on.close();
    }
  });
});

describe('SIDEGATE_LOGS_PER_MONTH', () => {
  it('refuses a batch beyond the monthly limit with 429 and Retry-After, keeps the count across a restart, and never limits chat', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sidegate-quota-'));
    const start = () => startHarness({ dataDir: dir, logsPerMonth: 3 });
    let q = await start();
    try {
      const send = (n: number) => post('/v1/logs', Array.from({ length: n }, () => ({ request: {} })), 'POST', q.gateway.url);
      expect((await send(2)).status).toBe(200);
      const over = await send(2);
      expect(over.status).toBe(429);
      expect(over.body.error.type).toBe('rate_limit_error');
      expect(over.body.error.code).toBe('logs_quota_exceeded');
      expect(over.body.error.message).toContain('SIDEGATE_LOGS_PER_MONTH');
      const retryAfter = Number(over.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(31 * 24 * 3600);
      await q.close();

      q = await start();
      expect(JSON.parse(await readFile(join(dir, 'logs-quota.json'), 'utf8')).count).toBe(2);
      expect((await send(1)).status).toBe(200);
      expect((await send(1)).status).toBe(429);
      const chat = await q.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] });
      expect(chat.choices[0]?.message.content).toBeTruthy();
    } finally {
      await q.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('feedback', () => {
  it('records a feedback span in the rated trace, then a new version under the same id', async () => {
    const res = await post('/v1/feedback', { trace_id: 'rated-trace', value: 7, weight: 0.5, metadata: { reason: 'good' } });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(res.body.message).toBe('feedback recorded');
    const id = res.body.feedback_ids[0] as string;
    expect(id).toMatch(/^fb-[0-9a-f]{32}-[0-9a-f]{16}$/);

    const first = byName('feedback');
    expect(first.spanContext().traceId).toBe(mapTraceId('rated-trace'));
    expect(first.attributes).toStrictEqual({
      'gateway.feedback.id': id,
      'gateway.feedback.value': 7,
      'gateway.feedback.weight': 0.5,
      'gateway.trace_id': 'rated-trace',
      'gateway.metadata.reason': 'good',
    });

    const update = await post(`/v1/feedback/${id}`, { value: -3 }, 'PUT');
    expect(update.status).toBe(200);
    expect(update.body.feedback_ids).toStrictEqual([id]);
    const versions = spans().filter((s) => s.name === 'feedback');
    expect(versions).toHaveLength(2);
    const second = versions[1] as ReadableSpan;
    expect(second.spanContext().traceId).toBe(mapTraceId('rated-trace'));
    expect(second.attributes['gateway.feedback.id']).toBe(id);
    expect(second.attributes['gateway.feedback.value']).toBe(-3);
    expect(second.attributes['gateway.feedback.weight']).toBe(1);
    expect(ns(second.startTime)).toBeGreaterThan(ns(first.startTime));
  });

  const rows: Array<{ name: string; body: unknown; param: string | null }> = [
    { name: 'no trace_id', body: { value: 1 }, param: 'trace_id' },
    { name: 'a blank trace_id', body: { trace_id: '', value: 1 }, param: 'trace_id' },
    { name: 'no value', body: { trace_id: 't' }, param: 'value' },
    { name: 'value above 10', body: { trace_id: 't', value: 11 }, param: 'value' },
    { name: 'value below -10', body: { trace_id: 't', value: -11 }, param: 'value' },
    { name: 'a fractional value', body: { trace_id: 't', value: 1.5 }, param: 'value' },
    { name: 'weight above 1', body: { trace_id: 't', value: 1, weight: 1.5 }, param: 'weight' },
    { name: 'a negative weight', body: { trace_id: 't', value: 1, weight: -0.1 }, param: 'weight' },
    { name: 'metadata not strings', body: { trace_id: 't', value: 1, metadata: { a: 1 } }, param: 'metadata.a' },
    { name: 'an unknown field', body: { trace_id: 't', value: 1, score: 2 }, param: 'score' },
    { name: 'not an object', body: [], param: null },
  ];
  it.each(rows)('POST 400: $name → param $param', async ({ body, param }) => {
    const res = await post('/v1/feedback', body);
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe(param);
    expect(spans()).toHaveLength(0);
  });

  it('PUT answers 400 for a bad body and 404 for an id it never issued', async () => {
    const id = `fb-${mapTraceId('t')}-0123456789abcdef`;
    const bad = await post(`/v1/feedback/${id}`, { value: 20 }, 'PUT');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('value');
    const missing = await post('/v1/feedback/not-a-feedback-id', { value: 1 }, 'PUT');
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('not_found_error');
    expect(spans()).toHaveLength(0);
  });
});

describe('with OTEL_SDK_DISABLED=true', () => {
  it('answers logs and feedback exactly the same, only no span leaves', async () => {
    const off = await startHarness({ dataDir }, { telemetry: createTelemetry({ env: { OTEL_SDK_DISABLED: 'true' }, logger: () => {} }) });
    try {
      const logs = await post('/v1/logs', [{ request: {} }, { request: {} }], 'POST', off.gateway.url);
      expect(logs.status).toBe(200);
      expect(logs.body.log_ids).toHaveLength(2);
      const bad = await post('/v1/logs', [{ request: { url: 1 } }], 'POST', off.gateway.url);
      expect(bad.body.error.param).toBe('logs[0].request.url');
      const feedback = await post('/v1/feedback', { trace_id: 't', value: 1 }, 'POST', off.gateway.url);
      expect(feedback.status).toBe(200);
      expect(feedback.body.feedback_ids).toHaveLength(1);
    } finally {
      await off.close();
    }
  });
});
