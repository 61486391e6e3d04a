import { describe, expect, it } from 'vitest';
import { readOtelConfig } from './read-otel-config.js';

function read(env: Record<string, string | undefined>) {
  const warnings: string[] = [];
  const config = readOtelConfig(env, (m) => warnings.push(m));
  return { config, warnings };
}

describe('readOtelConfig', () => {
  it('uses the spec defaults for an empty env (but export batches of 64)', () => {
    const { config, warnings } = read({});
    expect(config.traces).toStrictEqual({
      protocol: 'http/protobuf',
      url: 'http://localhost:4318/v1/traces',
      headers: {},
      timeoutMillis: 10_000,
      compression: 'none',
    });
    expect(config.serviceName).toStrictEqual('sidegate');
    expect(config.sampler).toStrictEqual({ name: 'parentbased_always_on', ratio: 1 });
    expect(config.propagators).toStrictEqual(['tracecontext', 'baggage']);
    expect(config.bsp).toStrictEqual({ scheduledDelayMillis: 5000, exportTimeoutMillis: 30_000, maxQueueSize: 2048, maxExportBatchSize: 64 });
    expect(config.captureContent).toStrictEqual('none');
    expect(config.disabled).toStrictEqual(false);
    expect(warnings).toStrictEqual([]);
  });

  it.each([
    { name: 'base endpoint gets /v1/traces', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, want: 'http://collector:4318/v1/traces' },
    { name: 'traces endpoint is used as is', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/custom' }, want: 'http://b:9999/custom' },
    { name: 'grpc base endpoint is used as is', env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317' }, want: 'http://c:4317' },
    { name: 'grpc default', env: { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, want: 'http://localhost:4317' },
    { name: 'blank means unset', env: { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, want: 'http://localhost:4318/v1/traces' },
  ])('endpoint: $name', ({ env, want }) => {
    expect(read(env).config.traces.url).toStrictEqual(want);
  });

  it('reads headers, timeout, compression and per-signal overrides', () => {
    const { config } = read({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-team=a,authorization=Basic%20abc',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-team=b',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    });
    expect(config.traces).toStrictEqual({
      protocol: 'http/json',
      url: 'http://localhost:4318/v1/traces',
      headers: { 'x-team': 'b', authorization: 'Basic abc' },
      timeoutMillis: 2500,
      compression: 'gzip',
    });
    expect(config.metrics.url).toStrictEqual('http://localhost:4318/v1/metrics');
  });

  it.each([
    { name: 'bad protocol', env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'thrift' } },
    { name: 'bad endpoint', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' } },
    { name: 'bad sampler', env: { OTEL_TRACES_SAMPLER: 'jaeger_remote' } },
    { name: 'bad ratio', env: { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' } },
    { name: 'bad queue size', env: { OTEL_BSP_MAX_QUEUE_SIZE: '-1' } },
    { name: 'bad boolean', env: { OTEL_SDK_DISABLED: 'yes' } },
    { name: 'bad capture mode', env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'maybe' } },
    { name: 'unknown propagator', env: { OTEL_PROPAGATORS: 'tracecontext,xray' } },
  ])('warns and takes the default on $name', ({ env }) => {
    const { config, warnings } = read(env);
    expect(warnings.length).toBeGreaterThan(0); // once per signal that reads the variable
    expect(config.traces.protocol).toStrictEqual('http/protobuf');
    expect(config.disabled).toStrictEqual(false);
  });

  it.each([
    { value: 'true', want: 'span' },
    { value: 'FALSE', want: 'none' },
    { value: 'NO_CONTENT', want: 'none' },
    { value: 'SPAN_ONLY', want: 'span' },
    { value: 'EVENT_ONLY', want: 'event' },
    { value: 'span_and_event', want: 'span_and_event' },
  ])('reads OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=$value', ({ value, want }) => {
    expect(read({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value }).config.captureContent).toStrictEqual(want);
  });

  it('reads sampler, propagators, exporters and BSP settings', () => {
    const { config } = read({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_PROPAGATORS: 'baggage',
      OTEL_TRACES_EXPORTER: 'console,otlp',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_BSP_MAX_QUEUE_SIZE: '10',
    });
    expect(config.sampler).toStrictEqual({ name: 'parentbased_traceidratio', ratio: 0.25 });
    expect(config.propagators).toStrictEqual(['baggage']);
    expect(config.tracesExporters).toStrictEqual(['console', 'otlp']);
    expect(config.metricsExporters).toStrictEqual([]);
    expect(config.bsp.scheduledDelayMillis).toStrictEqual(100);
    expect(config.bsp.maxQueueSize).toStrictEqual(10);
  });
});
