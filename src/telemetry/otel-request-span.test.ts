import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type Span } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { createRoutingConfigStore } from '../config/routing-config.js';
import { createContextPropagator, readRequestContext } from '../server/request-context.js';
import { createTelemetry } from './create-telemetry.js';
import { SpanIdRegistry } from './span-id-registry.js';
import type { RequestStart } from './telemetry.js';

const contextEnv = { configs: createRoutingConfigStore({}), timeoutMs: 1000, spanIds: new SpanIdRegistry(), propagator: createContextPropagator() };

async function serverSpan(env: Record<string, string>, extra: Pick<RequestStart, 'attributes' | 'contentAttributes'>, chat = true) {
  const exporter = new InMemorySpanExporter();
  const telemetry = createTelemetry({ env: { OTEL_METRICS_EXPORTER: 'none', ...env }, logger: () => {}, spanProcessorOverride: new SimpleSpanProcessor(exporter) });
  const context = await readRequestContext({}, contextEnv);
  telemetry
    .startRequest({
      context,
      operation: 'chat',
      model: 'gemini-2.5-flash',
      route: '/v1/prompts/{id}/completions',
      ...(chat ? { chat: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hello Ada' }] } } : {}),
      ...extra,
    })
    .end({ status: 200, attempts: 0 });
  await telemetry.forceFlush(); // spans hand their work to the SDK off the request path (off-path.ts)
  return exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)!;
}

describe('request span: extra and content attributes', () => {
  const extra = { attributes: { 'gateway.prompt.id': 'greet', 'gateway.prompt.version': 2 }, contentAttributes: { 'gateway.prompt.variables': '{"name":"Ada"}' } };

  it('records extra attributes always, content attributes not unless content capture is on', async () => {
    const span = await serverSpan({}, extra);
    expect(span.attributes).toMatchObject({ 'gateway.prompt.id': 'greet', 'gateway.prompt.version': 2 });
    expect(span.attributes['gateway.prompt.variables']).toBeUndefined();
    expect(JSON.stringify(span.attributes)).not.toContain('Ada');
  });

  it.each(['true', 'SPAN_ONLY', 'SPAN_AND_EVENT'])('records content attributes with capture %s', async (value) => {
    const span = await serverSpan({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value }, extra);
    expect(span.attributes['gateway.prompt.variables']).toBe('{"name":"Ada"}');
    expect(span.attributes['gen_ai.input.messages']).toBeDefined();
  });

  it('puts them on the event with EVENT_ONLY capture, and works without a chat request', async () => {
    const span = await serverSpan({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'EVENT_ONLY' }, extra, false);
    expect(span.attributes['gateway.prompt.variables']).toBeUndefined();
    expect(span.events[0]?.attributes).toStrictEqual({ 'gateway.prompt.variables': '{"name":"Ada"}' });
  });
});

describe('request and attempt spans: the SDK work waits until the request path is done', () => {
  it('hands no attribute to the SDK while a call is under way, and every one before its spans end', async () => {
    const started: Span[] = [];
    const exporter = new InMemorySpanExporter();
    const recorder = new SimpleSpanProcessor(exporter);
    const processor = Object.assign(Object.create(recorder) as SimpleSpanProcessor, { onStart: (span: Span) => started.push(span) });
    const telemetry = createTelemetry({ env: { OTEL_METRICS_EXPORTER: 'none' }, logger: () => {}, spanProcessorOverride: processor });
    const context = await readRequestContext({}, contextEnv);
    const request = telemetry.startRequest({
      context,
      operation: 'chat',
      model: 'gemini-2.5-flash',
      route: '/v1/chat/completions',
      chat: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hello' }], temperature: 0.2 },
    });
    const attempt = request.startAttempt({
      providerName: 'gcp.gemini',
      operationName: 'generate_content',
      model: 'gemini-2.5-flash',
      baseUrl: 'https://generativelanguage.googleapis.com',
      attemptNumber: 1,
      targetIndex: 'default',
      resendCount: 0,
    });
    attempt.firstChunk();
    await new Promise((resolve) => setImmediate(resolve));
    // The call is under way (upstream asked, the first chunk relayed): nothing handed to the SDK yet.
    expect(started.map((span) => span.attributes)).toStrictEqual([{}, {}]);

    // Started and ended in one turn, and ended while the first call is still open.
    const second = telemetry.startRequest({ context: await readRequestContext({}, contextEnv), operation: 'chat', model: 'gemini-2.5-pro', route: '/v1/chat/completions' });
    second.end({ status: 200, attempts: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    const [server, client] = started;
    expect(server!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.temperature': 0.2, 'http.route': '/v1/chat/completions' });
    expect(client!.attributes).toMatchObject({ 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.request.temperature': 0.2, 'server.port': 443 });
    expect(client!.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0);

    attempt.end({ status: 200 });
    request.end({ status: 200, attempts: 1 });
    await telemetry.forceFlush();
    const ended: ReadableSpan[] = exporter.getFinishedSpans();
    expect(ended.map((span) => [span.name, span.attributes['gen_ai.request.model'], span.attributes['http.response.status_code']])).toStrictEqual([
      ['chat gemini-2.5-pro', 'gemini-2.5-pro', 200],
      ['generate_content gemini-2.5-flash', 'gemini-2.5-flash', 200],
      ['chat gemini-2.5-flash', 'gemini-2.5-flash', 200],
    ]);
  });
});
