import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
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
