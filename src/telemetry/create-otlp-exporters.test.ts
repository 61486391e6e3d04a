import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, InstrumentType, MeterProvider, MetricReader, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetricExporter, createTraceExporter } from './create-otlp-exporters.js';
import type { OtlpSignalConfig } from './read-otel-config.js';
import { closeCollectors, collector, type Received } from './test-helpers.js';

// The SDK's own exporters for each OTLP/HTTP protocol, which ours are built like: the same data,
// sent through both to the same collector, must arrive the same, byte for byte.
const load = createRequire(import.meta.url);
type ExporterClass = new (options: object) => SpanExporter | PushMetricExporter;
const sdkExporters: Record<string, ExporterClass> = {
  'metrics http/protobuf': (load('@opentelemetry/exporter-metrics-otlp-proto') as { OTLPMetricExporter: ExporterClass }).OTLPMetricExporter,
  'metrics http/json': (load('@opentelemetry/exporter-metrics-otlp-http') as { OTLPMetricExporter: ExporterClass }).OTLPMetricExporter,
  'traces http/json': (load('@opentelemetry/exporter-trace-otlp-http') as { OTLPTraceExporter: ExporterClass }).OTLPTraceExporter,
  // http/protobuf spans: sliced-protobuf-trace-exporter.test.ts
};

afterEach(async () => {
  vi.unstubAllEnvs();
  await closeCollectors();
});

/** Every exporter answered alike: an empty 200. */
const answer = { status: 200, headers: { 'content-length': '0' } };

const resource = resourceFromAttributes({ 'service.name': 'exporters-test' });

function finishedSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('exporters-test');
  for (const name of ['chat gemini-2.5-flash', 'generate_content gemini-2.5-flash']) {
    tracer.startSpan(name, { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 12 } }).end();
  }
  return memory.getFinishedSpans();
}

/** A reader collected by hand: what a metric reader hands its exporter. */
class CollectedByHand extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

async function collectedMetrics(): Promise<ResourceMetrics> {
  const reader = new CollectedByHand();
  const meter = new MeterProvider({ resource, readers: [reader] }).getMeter('exporters-test');
  meter.createHistogram('gen_ai.client.operation.duration', { unit: 's' }).record(0.42, { 'gen_ai.operation.name': 'chat' });
  meter.createCounter('sidegate.breaker.skips').add(2, { 'gen_ai.provider.name': 'gcp.gemini' });
  const { resourceMetrics, errors } = await reader.collect();
  expect(errors).toEqual([]);
  return resourceMetrics;
}

function send(exporter: SpanExporter | PushMetricExporter, data: ReadableSpan[] | ResourceMetrics): Promise<ExportResult> {
  return new Promise((resolve) => (exporter.export as (data: unknown, done: (result: ExportResult) => void) => void)(data, resolve));
}

/** node:http client requests made while `run` runs. */
async function nodeHttpClientRequests(run: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const onStart = () => {
    count += 1;
  };
  subscribe('http.client.request.start', onStart);
  try {
    await run();
  } finally {
    unsubscribe('http.client.request.start', onStart);
  }
  return count;
}

describe('OTLP/HTTP exporters', () => {
  it.each([
    ['metrics', 'http/protobuf'],
    ['metrics', 'http/json'],
    ['traces', 'http/json'],
  ] as const)('%s over %s: the same request as the SDK exporter, sent without node:http', async (signal, protocol) => {
    const { origin, received } = await collector(answer);
    const url = `${origin}/v1/${signal}`;
    const headers = { 'x-tenant': 'acme' };
    const data = signal === 'metrics' ? await collectedMetrics() : finishedSpans();
    const config: OtlpSignalConfig = { protocol, url, headers, timeoutMillis: 5_000, compression: 'none' };
    const ours = signal === 'metrics' ? createMetricExporter(config) : createTraceExporter(config);
    const sdk = new sdkExporters[`${signal} ${protocol}`]!({ url, headers, timeoutMillis: 5_000 });

    expect((await send(sdk, data)).code).toBe(ExportResultCode.SUCCESS);
    let result: ExportResult | undefined;
    expect(await nodeHttpClientRequests(async () => (result = await send(ours, data)))).toBe(0);
    expect(result?.code).toBe(ExportResultCode.SUCCESS);

    expect(received).toHaveLength(2);
    const [theirs, mine] = received as [Received, Received];
    expect(mine.method).toBe('POST');
    expect(mine.url).toBe(`/v1/${signal}`);
    expect(mine.headers['content-type']).toBe(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf');
    expect(mine.headers['content-type']).toBe(theirs.headers['content-type']);
    expect(mine.headers['x-tenant']).toBe('acme');
    expect(mine.headers['user-agent']).toBe(theirs.headers['user-agent']);
    expect(mine.body.length).toBeGreaterThan(0);
    expect(mine.body.equals(theirs.body)).toBe(true);
    await Promise.all([ours.shutdown(), sdk.shutdown()]);
  });

  it('metrics: the temporality preference is read from the environment, as the SDK exporters read it', async () => {
    vi.stubEnv('OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE', 'delta');
    const url = 'http://127.0.0.1:9/v1/metrics';
    for (const protocol of ['http/protobuf', 'http/json'] as const) {
      const ours = createMetricExporter({ protocol, url, headers: {}, timeoutMillis: 1_000, compression: 'none' });
      const sdk = new sdkExporters[`metrics ${protocol}`]!({ url }) as PushMetricExporter;
      for (const type of [InstrumentType.HISTOGRAM, InstrumentType.COUNTER, InstrumentType.UP_DOWN_COUNTER, InstrumentType.OBSERVABLE_GAUGE]) {
        expect(ours.selectAggregationTemporality?.(type)).toBe(sdk.selectAggregationTemporality?.(type));
      }
      expect(ours.selectAggregationTemporality?.(InstrumentType.HISTOGRAM)).toBe(AggregationTemporality.DELTA);
      await Promise.all([ours.shutdown(), sdk.shutdown()]);
    }
  });

  it('spans and metrics share one pool: the metric export takes the span exports\' kept-alive connection, and either outlives the other\'s shutdown', async () => {
    const { origin, received } = await collector(answer);
    const config = (signal: string): OtlpSignalConfig => ({ protocol: 'http/protobuf', url: `${origin}/v1/${signal}`, headers: {}, timeoutMillis: 5_000, compression: 'none' });
    const spans = createTraceExporter(config('traces'));
    const metrics = createMetricExporter(config('metrics'));
    for (let i = 0; i < 2; i++) expect((await send(spans, finishedSpans())).code).toBe(ExportResultCode.SUCCESS);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the span exports' connections idle again
    expect((await send(metrics, await collectedMetrics())).code).toBe(ExportResultCode.SUCCESS);
    expect(received.map((r) => r.url)).toEqual(['/v1/traces', '/v1/traces', '/v1/metrics']);
    const spanConnections = received.slice(0, 2).map((r) => r.port);
    expect(spanConnections).toContain(received[2]!.port);

    await spans.shutdown();
    expect((await send(metrics, await collectedMetrics())).code).toBe(ExportResultCode.SUCCESS);
    expect(received).toHaveLength(4);
    await metrics.shutdown();
  });
});
