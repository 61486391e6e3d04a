/**
 * GenAI metrics (semconv `gen_ai.client.*`, `gen_ai.server.request.duration`) and the readers
 * that push them over OTLP and render them for `/metrics`. Built once at startup.
 */
import type { Counter, Histogram, ObservableGauge } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  ConsoleMetricExporter,
  InstrumentType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { createMetricExporter } from './create-otlp-exporters.js';
import type { OtelConfig } from './read-otel-config.js';
import {
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
} from './semconv-incubating.js';

/** The instruments the request and attempt spans record into. */
export interface Instruments {
  operationDuration: Histogram;
  timeToFirstChunk: Histogram;
  tokenUsage: Histogram;
  requestDuration: Histogram;
  /** Time an attempt waited for an upstream pool connection (`sidegate.upstream.queue.duration`). */
  upstreamQueue: Histogram;
  droppedSpans: Counter;
  /** Targets skipped while their breaker was open (`sidegate.breaker.skips`). */
  targetSkips: Counter;
  /** Retries the retry budget refused (`sidegate.retry_budget.refusals`). */
  retryBudgetRefusals: Counter;
  /** Each target's breaker state, 0 closed, 1 half-open, 2 open (`sidegate.breaker.state`); read by a callback. */
  breakerState: ObservableGauge;
}

export interface Metrics {
  meterProvider: MeterProvider;
  /** The reader `/metrics` collects from: the OTLP push reader when it is cumulative, else a Prometheus reader. */
  metricsSource: IMetricReader;
  instruments: Instruments;
}

const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

export function createMetrics(config: OtelConfig, resource: Resource, serviceVersion: string | undefined): Metrics {
  const readers: IMetricReader[] = [];
  let shared: IMetricReader | undefined;
  for (const kind of config.metricsExporters) {
    const exporter: PushMetricExporter = kind === 'console' ? new ConsoleMetricExporter() : createMetricExporter(config.metrics);
    const reader = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: config.metricExportIntervalMillis,
      exportTimeoutMillis: Math.min(config.metricExportTimeoutMillis, config.metricExportIntervalMillis),
    });
    readers.push(reader);
    if (shared === undefined && kind !== 'console' && isCumulative(exporter)) shared = reader;
  }
  // Every reader costs an attribute hash per recorded value on the request path. A cumulative OTLP
  // reader (the default) already holds what Prometheus needs, so `/metrics` collects from it; a
  // separate Prometheus reader is added only for delta temporality or when OTLP push is off.
  if (shared === undefined) {
    shared = new PrometheusExporter({ preventServerStart: true });
    readers.push(shared);
  }
  const meterProvider = new MeterProvider({ resource, readers });
  const meter = meterProvider.getMeter('sidegate', serviceVersion);
  const instruments: Instruments = {
    operationDuration: meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION, {
      unit: 's',
      description: 'Duration of each upstream GenAI call (one per attempt)',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    timeToFirstChunk: meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK, {
      unit: 's',
      description: 'Time to the first streamed chunk of an upstream call',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    tokenUsage: meter.createHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
      unit: '{token}',
      description: 'Tokens used by each billed upstream call',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    requestDuration: meter.createHistogram(METRIC_GEN_AI_SERVER_REQUEST_DURATION, {
      unit: 's',
      description: 'Duration of each chat-completions request served by the gateway',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    upstreamQueue: meter.createHistogram('sidegate.upstream.queue.duration', {
      unit: 's',
      description: 'Time an upstream call waited for a pool connection before its request was written',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    droppedSpans: meter.createCounter('sidegate.telemetry.spans.dropped', {
      unit: '{span}',
      description: 'Spans never delivered to the collector (queue full or export failed)',
    }),
    targetSkips: meter.createCounter('sidegate.breaker.skips', {
      unit: '{target}',
      description: 'Targets skipped without an attempt because their circuit breaker was open',
    }),
    retryBudgetRefusals: meter.createCounter('sidegate.retry_budget.refusals', {
      unit: '{retry}',
      description: "Retries not made because they would exceed the target's retry budget",
    }),
    breakerState: meter.createObservableGauge('sidegate.breaker.state', {
      unit: '1',
      description: "Each target's circuit breaker: 0 closed, 1 half-open (cooled down, probing), 2 open (cooling down)",
    }),
  };
  return { meterProvider, metricsSource: shared, instruments };
}

function isCumulative(exporter: PushMetricExporter): boolean {
  const select = exporter.selectAggregationTemporality?.bind(exporter);
  if (select === undefined) return true; // the SDK's default selector is cumulative
  return [InstrumentType.COUNTER, InstrumentType.HISTOGRAM, InstrumentType.UP_DOWN_COUNTER].every(
    (type) => select(type) === AggregationTemporality.CUMULATIVE,
  );
}
