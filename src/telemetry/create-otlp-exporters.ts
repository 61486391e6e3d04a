/**
 * OTLP exporter selection by `OTEL_EXPORTER_OTLP_(TRACES_|METRICS_)PROTOCOL`. Exporter packages
 * are loaded only for the protocol in use: each one (gRPC above all) costs megabytes of resident
 * memory, and a sidecar's idle footprint is part of its contract. They ship CommonJS, so a
 * synchronous require keeps `createTelemetry` synchronous.
 *
 * Over HTTP every exporter is the SDK's, built from the parts its package builds it from (the
 * same options, environment, serialiser, export delegate and exporter metrics), except that the
 * delegate posts through undici (undici-export-transport.ts says why): so the process never runs
 * node:http's client, not even once a minute for the metrics.
 */
import { createRequire } from 'node:module';
import { OTLPExporterBase, type OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { OtlpSignalConfig } from './read-otel-config.js';
import { SlicedProtobufTraceExporter } from './sliced-protobuf-trace-exporter.js';
import { createUndiciExportDelegate } from './undici-export-transport.js';

/**
 * Spans serialised per macrotask, at least: more while a backlog builds (sliced-protobuf-trace-
 * exporter.ts). bench/export-pause.mjs (2,000 requests/s, a batch of 64 spans per 32 requests): the
 * CPU between two requests at p99 went from 1,074 µs (the whole batch at once) to 555 µs in slices
 * of 16 and 504 µs in slices of 8, CPU per request unchanged (102 / 95 / 94 µs).
 */
export const EXPORT_SLICE_SPANS = 8;

const requireExporter = createRequire(import.meta.url);

function exporterOptions(signal: OtlpSignalConfig) {
  return {
    url: signal.url,
    headers: signal.headers,
    timeoutMillis: signal.timeoutMillis,
    // The exporters' CompressionAlgorithm enum has exactly these string values.
    compression: signal.compression as OTLPExporterNodeConfigBase['compression'],
  };
}

/** `backlog`: spans waiting in the batch processor's queue, for the protobuf exporter's slicing. */
export function createTraceExporter(signal: OtlpSignalConfig, backlog?: () => number): SpanExporter {
  const options = exporterOptions(signal);
  switch (signal.protocol) {
    case 'grpc': {
      // gRPC metadata comes from OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, read by the exporter itself.
      const { headers: _headers, ...grpc } = options;
      const { OTLPTraceExporter } = requireExporter('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc');
      return new OTLPTraceExporter(grpc);
    }
    case 'http/json': {
      // exporter-trace-otlp-http's OTLPTraceExporter, posting through undici. (otlp-exporter-base is
      // loaded at start anyway: undici-export-transport.ts imports it.)
      const { JsonTraceSerializer, TraceExporterMetricsHelper } = requireExporter('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer');
      return new OTLPExporterBase(
        createUndiciExportDelegate(options, { signal: 'traces', contentType: 'application/json', serializer: JsonTraceSerializer, componentType: 'otlp_http_span_exporter', metricsHelper: TraceExporterMetricsHelper }),
      );
    }
    case 'http/protobuf':
      // The SDK's serialiser and HTTP export delegate, a batch serialised in slices that yield to
      // the event loop (larger while a backlog builds) and sent in one POST
      // (sliced-protobuf-trace-exporter.ts).
      return new SlicedProtobufTraceExporter(options, EXPORT_SLICE_SPANS, backlog);
  }
}

export function createMetricExporter(signal: OtlpSignalConfig): PushMetricExporter {
  const options = exporterOptions(signal);
  switch (signal.protocol) {
    case 'grpc': {
      const { headers: _headers, ...grpc } = options;
      const { OTLPMetricExporter } = requireExporter('@opentelemetry/exporter-metrics-otlp-grpc') as typeof import('@opentelemetry/exporter-metrics-otlp-grpc');
      return new OTLPMetricExporter(grpc);
    }
    case 'http/json':
    case 'http/protobuf': {
      // exporter-metrics-otlp-http's and -proto's OTLPMetricExporter (the base class reads the
      // temporality preference, as theirs do), posting through undici.
      const { OTLPMetricExporterBase } = requireExporter('@opentelemetry/exporter-metrics-otlp-http') as typeof import('@opentelemetry/exporter-metrics-otlp-http');
      const { JsonMetricsSerializer, ProtobufMetricsSerializer, MetricsExporterMetricsHelper } = requireExporter('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer');
      const [contentType, serializer] = signal.protocol === 'http/json' ? ['application/json', JsonMetricsSerializer] : ['application/x-protobuf', ProtobufMetricsSerializer];
      const kind = { signal: 'metrics', contentType, serializer, componentType: 'otlp_http_metric_exporter', metricsHelper: MetricsExporterMetricsHelper } as const;
      return new OTLPMetricExporterBase(createUndiciExportDelegate(options, kind), options);
    }
  }
}

