import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type Span } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ClientAbortError, InvalidRequestError, UpstreamError } from '../errors.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import type { CallOutcome } from '../providers/provider.js';
import { createRoutingConfigStore } from '../config/routing-config.js';
import { createContextPropagator, readRequestContext, type RequestContext } from '../server/request-context.js';
import { responseTraceHeaders } from '../server/response-trace-headers.js';
import { createTelemetry } from './create-telemetry.js';
import { mapTraceId } from './map-id.js';
import { SpanIdRegistry } from './span-id-registry.js';
import type { AttemptStart, Telemetry } from './telemetry.js';

const request: ChatCompletionRequest = {
  model: 'gemini-2.5-flash',
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'hello there' },
  ],
  temperature: 0.2,
  max_tokens: 100,
};

const attempt = (over: Partial<AttemptStart> = {}): AttemptStart => ({
  providerName: 'gcp.gemini',
  operationName: 'generate_content',
  model: 'gemini-2.5-flash',
  baseUrl: 'https://generativelanguage.googleapis.com',
  attemptNumber: 1,
  targetIndex: 'default',
  resendCount: 0,
  ...over,
});

const outcome: CallOutcome = {
  responseId: 'resp-1',
  responseModel: 'gemini-2.5-flash',
  finishReasons: ['stop'],
  usage: { inputTokens: 1000, outputTokens: 500, reasoningTokens: 100, cachedInputTokens: 0 },
  warnings: [],
};

function setup(env: Record<string, string> = {}) {
  const exporter = new InMemorySpanExporter();
  const lines: string[] = [];
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none', ...env },
    logger: (line) => lines.push(line),
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  // Spans hand their work to the SDK off the request path (off-path.ts): flushed before they are read.
  const spans = async () => {
    await telemetry.forceFlush();
    return exporter.getFinishedSpans();
  };
  const byKind = async (kind: SpanKind) => (await spans()).filter((s) => s.kind === kind);
  return { telemetry, spans, byKind, lines };
}

const contextEnv = {
  configs: createRoutingConfigStore({}),
  timeoutMs: 1000,
  spanIds: new SpanIdRegistry(),
  propagator: createContextPropagator(),
};

/** The server's part (the request context from headers), then the request span of a chat call. */
async function begin(telemetry: Telemetry, headers: Record<string, string>, chat: ChatCompletionRequest = request) {
  const context: RequestContext = await readRequestContext(headers, contextEnv);
  const span = telemetry.startRequest({ context, operation: 'chat', model: chat.model, route: '/v1/chat/completions', chat });
  return Object.assign(span, { context, responseHeaders: () => responseTraceHeaders(context.trace, span.sampled()) });
}

const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('createTelemetry spans', () => {
  it('records a request span and one attempt span per try, failed and succeeded, in time order', async () => {
    const { telemetry, byKind } = setup();
    const req = (await begin(telemetry, {}));
    const first = req.startAttempt(attempt());
    first.end({ status: 503, error: new UpstreamError('overloaded', { status: 503 }) });
    const second = req.startAttempt(attempt({ attemptNumber: 2, resendCount: 1 }));
    second.end({ status: 200, outcome });
    req.end({ status: 200, outcome, attempts: 2, finalTarget: 'default' });

    const [server] = await byKind(SpanKind.SERVER);
    const clients = await byKind(SpanKind.CLIENT);
    expect(server?.name).toStrictEqual('chat gemini-2.5-flash');
    expect(server?.status.code).toStrictEqual(SpanStatusCode.UNSET);
    expect(server?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.max_tokens': 100,
      'gen_ai.response.id': 'resp-1',
      'gen_ai.response.finish_reasons': ['stop'],
      'gateway.attempts': 2,
      'http.response.status_code': 200,
    });
    // Decision 3: usage and cost only on attempt spans.
    expect(server?.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    expect(server?.attributes['gateway.cost.usd']).toBeUndefined();

    expect(clients.map((s) => s.name)).toStrictEqual(['generate_content gemini-2.5-flash', 'generate_content gemini-2.5-flash']);
    for (const c of clients) expect(c.parentSpanContext?.spanId).toStrictEqual(server?.spanContext().spanId);
    expect(clients[0]?.status.code).toStrictEqual(SpanStatusCode.ERROR);
    expect(clients[0]?.attributes).toMatchObject({
      'error.type': '503',
      'http.response.status_code': 503,
      'gen_ai.provider.name': 'gcp.gemini',
      'server.address': 'generativelanguage.googleapis.com',
      'server.port': 443,
      'gateway.attempt.number': 1,
    });
    expect(clients[0]?.attributes['http.request.resend_count']).toBeUndefined();
    expect(clients[1]?.status.code).toStrictEqual(SpanStatusCode.UNSET);
    expect(clients[1]?.attributes).toMatchObject({
      'http.request.resend_count': 1,
      'gen_ai.usage.input_tokens': 1000,
      'gen_ai.usage.output_tokens': 500,
      'gen_ai.usage.reasoning.output_tokens': 100,
      'gateway.cost.usd': 0.00155, // 1000 × $0.30/M + 500 × $2.50/M
      'gen_ai.request.temperature': 0.2,
    });
  });

  it('files the request under traceparent and answers with its own traceparent', async () => {
    const { telemetry, byKind } = setup();
    const req = (await begin(telemetry, { traceparent }));
    const headers = req.responseHeaders();
    req.end({ status: 200, attempts: 0 });
    const server = (await byKind(SpanKind.SERVER))[0] as ReadableSpan;
    expect(server.spanContext().traceId).toStrictEqual('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(server.parentSpanContext?.spanId).toStrictEqual('00f067aa0ba902b7');
    expect(headers).toStrictEqual({
      'x-gateway-trace-id': '4bf92f3577b34da6a3ce929d0e0e4736',
      traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${server.spanContext().spanId}-01`,
    });
  });

  it('maps a non-hex x-gateway-trace-id, keeps the original and echoes it', async () => {
    const { telemetry, byKind } = setup();
    const req = (await begin(telemetry, { 'x-gateway-trace-id': 'checkout-42', traceparent }));
    const headers = req.responseHeaders();
    req.end({ status: 200, attempts: 0 });
    const server = (await byKind(SpanKind.SERVER))[0] as ReadableSpan;
    expect(server.spanContext().traceId).toStrictEqual(mapTraceId('checkout-42'));
    // x-gateway-trace-id wins; traceparent's parent is of another trace, so the span is a root.
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.attributes['gateway.trace_id']).toStrictEqual('checkout-42');
    expect(headers['x-gateway-trace-id']).toStrictEqual('checkout-42');
  });

  it('accepts the x-portkey-* aliases', async () => {
    const { telemetry, byKind } = setup();
    const req = (await begin(telemetry, { 'x-portkey-trace-id': 'abc', 'x-portkey-span-name': 'my step' }));
    const headers = req.responseHeaders();
    req.end({ status: 200, attempts: 0 });
    expect((await byKind(SpanKind.SERVER))[0]?.name).toStrictEqual('my step');
    expect(headers['x-gateway-trace-id']).toStrictEqual('abc');
    expect(req.context.portkey).toBe(true);
  });

  it('gives the request span the chosen x-gateway-span-id, and a fresh id with a link when reused', async () => {
    const { telemetry, byKind } = setup();
    const headers = { 'x-gateway-trace-id': 'run-7', 'x-gateway-span-id': 'step-1', 'x-gateway-parent-span-id': 'root' };
    (await begin(telemetry, headers)).end({ status: 200, attempts: 0 });
    (await begin(telemetry, headers)).end({ status: 200, attempts: 0 });
    const [a, b] = (await byKind(SpanKind.SERVER)) as [ReadableSpan, ReadableSpan];
    expect(a.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(b.spanContext().spanId).not.toStrictEqual(a.spanContext().spanId);
    expect(b.links.map((l) => l.context.spanId)).toStrictEqual([a.spanContext().spanId]);
    expect(a.parentSpanContext?.spanId).toStrictEqual(b.parentSpanContext?.spanId);
    expect(b.attributes['gateway.span_id']).toStrictEqual('step-1');
  });

  it('files the request under traceparent when x-gateway-span-id names the same span (Decision 1)', async () => {
    const { telemetry, byKind } = setup();
    (await begin(telemetry, { traceparent, 'x-gateway-span-id': '00f067aa0ba902b7' })).end({ status: 200, attempts: 0 });
    const server = (await byKind(SpanKind.SERVER))[0] as ReadableSpan;
    expect(server.parentSpanContext?.spanId).toStrictEqual('00f067aa0ba902b7');
    expect(server.spanContext().spanId).not.toStrictEqual('00f067aa0ba902b7');
  });

  it('merges baggage into metadata, x-gateway-metadata winning, as gateway.metadata.* attributes', async () => {
    const { telemetry, byKind } = setup();
    const req = await begin(telemetry, { baggage: 'team=search%20infra,env=dev', 'x-gateway-metadata': '{"env":"prod","user":"u1"}' });
    expect(req.context.metadata).toStrictEqual({ team: 'search infra', env: 'prod', user: 'u1' });
    req.end({ status: 200, attempts: 0 });
    expect((await byKind(SpanKind.SERVER))[0]?.attributes).toMatchObject({
      'gateway.metadata.team': 'search infra',
      'gateway.metadata.env': 'prod',
      'gateway.metadata.user': 'u1',
    });
  });

  it('ignores an invalid traceparent (W3C) and starts a new trace', async () => {
    const { telemetry, byKind } = setup();
    (await begin(telemetry, { traceparent: '00-zz-00f067aa0ba902b7-01' })).end({ status: 200, attempts: 0 });
    expect((await byKind(SpanKind.SERVER))[0]?.parentSpanContext).toBeUndefined();
  });

  it('leaves a 4xx SERVER span unset with error.type, and marks 5xx and client aborts ERROR', async () => {
    const { telemetry, byKind } = setup();
    (await begin(telemetry, {})).end({ status: 400, attempts: 1, error: new InvalidRequestError('bad', { param: 'x' }) });
    (await begin(telemetry, {})).end({ status: 502, attempts: 1, error: new UpstreamError('down', { status: 502, reason: 'connection_error' }) });
    const aborted = (await begin(telemetry, {}));
    aborted.startAttempt(attempt()); // never ended by the router
    aborted.end({ status: 499, attempts: 1, error: new ClientAbortError() });
    const servers = await byKind(SpanKind.SERVER);
    expect(servers.map((s) => [s.status.code, s.attributes['error.type']])).toStrictEqual([
      [SpanStatusCode.UNSET, 'invalid_request_error'],
      [SpanStatusCode.ERROR, 'connection_error'],
      [SpanStatusCode.ERROR, 'cancelled'],
    ]);
    const client = (await byKind(SpanKind.CLIENT))[0];
    expect([client?.status.code, client?.attributes['error.type']]).toStrictEqual([SpanStatusCode.ERROR, 'cancelled']);
  });

  it('sends traceparent of the attempt span upstream, never baggage; off with SIDEGATE_PROPAGATE_UPSTREAM=false', async () => {
    const on = setup();
    const req = (await begin(on.telemetry, { traceparent, tracestate: 'vendor=1', baggage: 'secret=x' }));
    const att = req.startAttempt(attempt());
    const headers = att.traceHeaders();
    att.end({ status: 200, outcome });
    req.end({ status: 200, attempts: 1 });
    const client = (await on.byKind(SpanKind.CLIENT))[0] as ReadableSpan;
    expect(headers).toStrictEqual({
      traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${client.spanContext().spanId}-01`,
      tracestate: 'vendor=1',
    });

    const off = setup({ SIDEGATE_PROPAGATE_UPSTREAM: 'false' });
    expect((await begin(off.telemetry, {})).startAttempt(attempt()).traceHeaders()).toStrictEqual({});
  });

  it('honours an unsampled traceparent: nothing recorded, the flag propagated', async () => {
    const { telemetry, spans } = setup();
    const req = (await begin(telemetry, { traceparent: traceparent.replace(/-01$/, '-00') }));
    const att = req.startAttempt(attempt());
    expect(att.traceHeaders().traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-00$/);
    att.end({ status: 200, outcome });
    req.end({ status: 200, attempts: 1 });
    expect((await spans())).toStrictEqual([]);
  });

  it('records time to first chunk on streamed attempts', async () => {
    const { telemetry, byKind } = setup();
    const req = (await begin(telemetry, {}, { ...request, stream: true }));
    const att = req.startAttempt(attempt());
    att.firstChunk();
    att.end({ status: 200, outcome });
    req.end({ status: 200, attempts: 1 });
    const client = (await byKind(SpanKind.CLIENT))[0];
    expect(typeof client?.attributes['gen_ai.response.time_to_first_chunk']).toStrictEqual('number');
    expect(client?.attributes['gen_ai.request.stream']).toStrictEqual(true);
  });

  it('records message content only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT turns it on', async () => {
    const off = setup();
    (await begin(off.telemetry, {})).end({ status: 200, attempts: 0 });
    expect(JSON.stringify((await off.spans())[0]?.attributes)).not.toContain('hello there');

    for (const value of ['true', 'SPAN_ONLY']) {
      const on = setup({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value });
      const req = (await begin(on.telemetry, {}));
      req.startAttempt(attempt()).end({ status: 200, outcome, output: [{ content: 'hi!', finishReason: 'stop' }] });
      req.end({ status: 200, attempts: 1 });
      const server = (await on.byKind(SpanKind.SERVER))[0];
      expect(server?.attributes['gen_ai.input.messages']).toStrictEqual(
        JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hello there' }] }]),
      );
      expect(server?.attributes['gen_ai.system_instructions']).toStrictEqual(JSON.stringify([{ type: 'text', content: 'be brief' }]));
      expect((await on.byKind(SpanKind.CLIENT))[0]?.attributes['gen_ai.output.messages']).toStrictEqual(
        JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'hi!' }], finish_reason: 'stop' }]),
      );
    }
  });

  it('sets the service name from OTEL_SERVICE_NAME, default sidegate, and resource attributes', async () => {
    const a = setup();
    (await begin(a.telemetry, {})).end({ status: 200, attempts: 0 });
    expect((await a.spans())[0]?.resource.attributes['service.name']).toStrictEqual('sidegate');
    const b = setup({ OTEL_SERVICE_NAME: 'edge-gw', OTEL_RESOURCE_ATTRIBUTES: 'k8s.pod.name=pod-1,service.name=ignored' });
    (await begin(b.telemetry, {})).end({ status: 200, attempts: 0 });
    expect((await b.spans())[0]?.resource.attributes).toMatchObject({ 'service.name': 'edge-gw', 'k8s.pod.name': 'pod-1' });
  });

  it('is a no-op with OTEL_SDK_DISABLED=true', async () => {
    const { telemetry, spans } = setup({ OTEL_SDK_DISABLED: 'true' });
    const req = (await begin(telemetry, { traceparent }));
    req.end({ status: 200, attempts: 0 });
    expect((await spans())).toStrictEqual([]);
    expect(req.sampled()).toBeUndefined();
  });

  it('never ends a span twice and never throws from end', async () => {
    const { telemetry, spans } = setup();
    const req = (await begin(telemetry, {}));
    req.end({ status: 200, attempts: 0 });
    req.end({ status: 500, attempts: 0 });
    expect((await spans())).toHaveLength(1);
  });
});

describe('createTelemetry sampling: what the headers say is what is exported', () => {
  const sampledParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  const unsampledParent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00';
  const cases: Array<{ sampler: string; arg?: string; headers: Record<string, string>; exported: boolean | undefined }> = [
    { sampler: 'always_on', headers: {}, exported: true },
    { sampler: 'always_off', headers: {}, exported: false },
    { sampler: 'traceidratio', arg: '1', headers: {}, exported: true },
    { sampler: 'traceidratio', arg: '0', headers: {}, exported: false },
    { sampler: 'parentbased_always_on', headers: { traceparent: sampledParent, tracestate: 'vendor=abc' }, exported: true },
    { sampler: 'parentbased_always_on', headers: { traceparent: unsampledParent, tracestate: 'vendor=abc' }, exported: false },
    { sampler: 'parentbased_always_off', headers: {}, exported: false },
    { sampler: 'parentbased_always_off', headers: { traceparent: sampledParent }, exported: true },
    { sampler: 'parentbased_traceidratio', arg: '0.5', headers: {}, exported: undefined },
  ];
  it.each(cases)('$sampler $arg with $headers.traceparent', async ({ sampler, arg, headers, exported }) => {
    const { telemetry, spans } = setup({ OTEL_TRACES_SAMPLER: sampler, ...(arg !== undefined ? { OTEL_TRACES_SAMPLER_ARG: arg } : {}) });
    // A ratio samples some traces and not others: forty calls, each judged on its own.
    const calls = exported === undefined ? 40 : 1;
    const seen = new Set<boolean>();
    for (let i = 0; i < calls; i++) {
      const req = await begin(telemetry, headers);
      const call = req.startAttempt(attempt());
      const upstream = call.traceHeaders();
      const response = req.responseHeaders();
      call.end({ status: 200 });
      req.end({ status: 200, attempts: 1 });
      const got = (await spans()).filter((span) => span.spanContext().traceId === req.context.trace.traceId);
      const server = got.find((span) => span.kind === SpanKind.SERVER);
      const client = got.find((span) => span.kind === SpanKind.CLIENT);
      const sampled = req.sampled() === true;
      seen.add(sampled);
      if (exported !== undefined) expect(sampled).toBe(exported);
      const flags = sampled ? '01' : '00';
      expect(response.traceparent).toBe(`00-${req.context.trace.traceId}-${req.context.trace.spanId}-${flags}`);
      expect(upstream.traceparent).toMatch(new RegExp(`^00-${req.context.trace.traceId}-[0-9a-f]{16}-${flags}$`));
      if (headers.tracestate !== undefined) expect(upstream.tracestate).toBe(headers.tracestate);
      if (!sampled) {
        expect(got).toStrictEqual([]);
        continue;
      }
      // The ids the headers named before the spans existed are the exported spans' ids.
      expect(server?.spanContext().spanId).toBe(req.context.trace.spanId);
      expect(client?.spanContext().spanId).toBe(upstream.traceparent!.split('-')[2]);
      expect(client?.parentSpanContext?.spanId).toBe(req.context.trace.spanId);
      expect(got.map((span) => span.spanContext().traceFlags)).toStrictEqual([1, 1]);
      expect(client?.spanContext().traceState?.serialize()).toBe(headers.tracestate);
    }
    if (exported === undefined) expect([...seen].sort()).toStrictEqual([false, true]);
  });
});

describe('createTelemetry span times', () => {
  it('never shows back-to-back attempts overlapping (one monotonic clock, not whole milliseconds)', async () => {
    const { telemetry, spans } = setup();
    const req = (await begin(telemetry, {}));
    for (let i = 1; i <= 300; i++) req.startAttempt(attempt({ attemptNumber: i })).end({ status: 503, error: new Error('x') });
    req.end({ status: 503, attempts: 300 });
    const nanos = ([s, ns]: [number, number]) => BigInt(s) * 1_000_000_000n + BigInt(ns);
    const attempts = (await spans())
      .filter((s) => s.kind === SpanKind.CLIENT)
      .sort((a, b) => Number(a.attributes['gateway.attempt.number']) - Number(b.attributes['gateway.attempt.number']));
    expect(attempts).toHaveLength(300);
    for (let i = 1; i < attempts.length; i++) {
      expect(nanos(attempts[i]!.startTime) >= nanos(attempts[i - 1]!.endTime)).toBe(true);
    }
    const server = (await spans()).find((s) => s.kind === SpanKind.SERVER)!;
    expect(nanos(server.startTime) <= nanos(attempts[0]!.startTime)).toBe(true);
    expect(nanos(server.endTime) >= nanos(attempts.at(-1)!.endTime)).toBe(true);
  });
});

describe('createTelemetry: the SDK work waits until an answer is written', () => {
  it('makes no SDK span while a call is under way, and each with every attribute before it ends', async () => {
    const started: Span[] = [];
    const exporter = new InMemorySpanExporter();
    const recorder = new SimpleSpanProcessor(exporter);
    const processor = Object.assign(Object.create(recorder) as SimpleSpanProcessor, { onStart: (span: Span) => started.push(span) });
    const telemetry = createTelemetry({ env: { OTEL_METRICS_EXPORTER: 'none' }, logger: () => {}, spanProcessorOverride: processor });
    const req = await begin(telemetry, {});
    const call = req.startAttempt(attempt());
    call.firstChunk();
    await new Promise((resolve) => setImmediate(resolve));
    // The call is under way (upstream asked, the first chunk relayed): nothing handed to the SDK yet,
    // not even the spans themselves (late-span.ts).
    expect(started).toStrictEqual([]);

    // Another request, started and ended in one turn while the first is still open.
    (await begin(telemetry, {}, { ...request, model: 'gemini-2.5-pro' })).end({ status: 200, attempts: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    const [server, client] = started;
    expect(server!.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.request.temperature': 0.2, 'http.route': '/v1/chat/completions' });
    expect(client!.attributes).toMatchObject({ 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.request.temperature': 0.2, 'server.port': 443 });
    expect(client!.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0);

    call.end({ status: 200 });
    req.end({ status: 200, attempts: 1 });
    await telemetry.forceFlush();
    const ended: ReadableSpan[] = exporter.getFinishedSpans();
    expect(ended.map((span) => [span.name, span.attributes['gen_ai.request.model'], span.attributes['http.response.status_code']])).toStrictEqual([
      ['chat gemini-2.5-pro', 'gemini-2.5-pro', 200],
      ['generate_content gemini-2.5-flash', 'gemini-2.5-flash', 200],
      ['chat gemini-2.5-flash', 'gemini-2.5-flash', 200],
    ]);
  });
});

describe('createTelemetry metrics with OTLP push on', () => {
  it.each([
    { name: 'cumulative (default): /metrics reads the push reader', preference: undefined },
    { name: 'delta: /metrics keeps its own cumulative reader', preference: 'delta' },
  ])('$name', async ({ preference }) => {
    const saved = process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE;
    if (preference) process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = preference;
    try {
      const telemetry = createTelemetry({
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_METRIC_EXPORT_INTERVAL: '600000', OTEL_TRACES_EXPORTER: 'none' },
        logger: () => {},
      });
      for (let i = 0; i < 2; i++) {
        const req = (await begin(telemetry, {}));
        req.startAttempt(attempt()).end({ status: 200, outcome });
        req.end({ status: 200, outcome, attempts: 1 });
        // Rendering twice must not reset anything: Prometheus counts are cumulative.
        const text = (await telemetry.renderMetrics?.()) ?? '';
        expect(text).toMatch(new RegExp(`gen_ai_server_request_duration(?:_seconds)?_count\\{[^}]*\\} ${i + 1}`));
      }
      await telemetry.shutdown(500);
    } finally {
      if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE;
      else process.env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE = saved;
    }
  });
});

describe('createTelemetry metrics', () => {
  it('renders GenAI histograms with semconv buckets and request counts as Prometheus text', async () => {
    const { telemetry } = setup();
    const req = (await begin(telemetry, {}));
    req.startAttempt(attempt()).end({ status: 200, outcome });
    req.end({ status: 200, outcome, attempts: 1 });
    const text = (await telemetry.renderMetrics?.()) ?? '';
    expect(text).toContain('gen_ai_client_operation_duration_bucket');
    expect(text).toContain('le="81.92"');
    expect(text).toMatch(/gen_ai_client_token_usage_bucket\{[^}]*gen_ai_token_type="input"[^}]*le="1024"\} 1/);
    expect(text).toMatch(/gen_ai_server_request_duration(?:_seconds)?_count\{[^}]*http_response_status_code="200"[^}]*\} 1/);
    await telemetry.shutdown(1000);
  });
});
