/**
 * GenAI metrics (semconv `gen_ai.client.*`, `gen_ai.server.request.duration`) and the readers
 * that push them over OTLP and render them for `/metrics`. Built once at startup.
 */
import type { Counter, ObservableGauge } from '@opentelemetry/api';
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
import { GatewayHistogram, HistogramProducer, type HistogramDescriptor } from './histogram-producer.js';
import type { OtelConfig } from './read-otel-config.js';
import {
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
} from './semconv-incubating.js';

/**
 * The instruments the request and attempt spans record into. The per-request histograms are
 * aggregated in sidegate's code and collected by the same readers (histogram-producer.ts); the
 * counters and the gauge, recorded rarely, are the SDK's.
 */
export interface Instruments {
  operationDuration: GatewayHistogram;
  timeToFirstChunk: GatewayHistogram;
  tokenUsage: GatewayHistogram;
  requestDuration: GatewayHistogram;
  /** Time an attempt waited for an upstream pool connection (`sidegate.upstream.queue.duration`). */
  upstreamQueue: GatewayHistogram;
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

const HISTOGRAMS = {
  operationDuration: {
    name: METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
    unit: 's',
    description: 'Duration of each upstream GenAI call (one per attempt)',
    boundaries: DURATION_BUCKETS,
  },
  timeToFirstChunk: {
    name: METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
    unit: 's',
    description: 'Time to the first streamed chunk of an upstream call',
    boundaries: DURATION_BUCKETS,
  },
  tokenUsage: {
    name: METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
    unit: '{token}',
    description: 'Tokens used by each billed upstream call',
    boundaries: TOKEN_BUCKETS,
  },
  requestDuration: {
    name: METRIC_GEN_AI_SERVER_REQUEST_DURATION,
    unit: 's',
    description: 'Duration of each chat-completions request served by the gateway',
    boundaries: DURATION_BUCKETS,
  },
  upstreamQueue: {
    name: 'sidegate.upstream.queue.duration',
    unit: 's',
    description: 'Time an upstream call waited for a pool connection before its request was written',
    boundaries: DURATION_BUCKETS,
  },
} satisfies Record<string, HistogramDescriptor>;

export function createMetrics(config: OtelConfig, resource: Resource, serviceVersion: string | undefined): Metrics {
  const scope = { name: 'sidegate', ...(serviceVersion !== undefined ? { version: serviceVersion } : {}) };
  const readers: IMetricReader[] = [];
  const producers: HistogramProducer[] = [];
  let shared: IMetricReader | undefined;
  for (const kind of config.metricsExporters) {
    const exporter: PushMetricExporter = kind === 'console' ? new ConsoleMetricExporter() : createMetricExporter(config.metrics);
    const producer = new HistogramProducer(scope, histogramTemporality(exporter));
    producers.push(producer);
    const reader = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: config.metricExportIntervalMillis,
      exportTimeoutMillis: Math.min(config.metricExportTimeoutMillis, config.metricExportIntervalMillis),
      metricProducers: [producer],
    });
    readers.push(reader);
    if (shared === undefined && kind !== 'console' && isCumulative(exporter)) shared = reader;
  }
  // Every reader costs each record once more on the request path. A cumulative OTLP reader (the
  // default) already holds what Prometheus needs, so `/metrics` collects from it; a separate
  // Prometheus reader is added only for delta temporality or when OTLP push is off.
  if (shared === undefined) {
    const producer = new HistogramProducer(scope, AggregationTemporality.CUMULATIVE);
    producers.push(producer);
    shared = new PrometheusExporter({ preventServerStart: true, metricProducers: [producer] });
    readers.push(shared);
  }
  const meterProvider = new MeterProvider({ resource, readers });
  const meter = meterProvider.getMeter(scope.name, serviceVersion);
  const histogram = (descriptor: HistogramDescriptor) => new GatewayHistogram(producers.map((producer) => producer.stream(descriptor)));
  const instruments: Instruments = {
    operationDuration: histogram(HISTOGRAMS.operationDuration),
    timeToFirstChunk: histogram(HISTOGRAMS.timeToFirstChunk),
    tokenUsage: histogram(HISTOGRAMS.tokenUsage),
    requestDuration: histogram(HISTOGRAMS.requestDuration),
    upstreamQueue: histogram(HISTOGRAMS.upstreamQueue),
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

function histogramTemporality(exporter: PushMetricExporter): AggregationTemporality {
  return exporter.selectAggregationTemporality?.(InstrumentType.HISTOGRAM) ?? AggregationTemporality.CUMULATIVE;
}

function isCumulative(exporter: PushMetricExporter): boolean {
  const select = exporter.selectAggregationTemporality?.bind(exporter);
  if (select === undefined) return true; // the SDK's default selector is cumulative
  return [InstrumentType.COUNTER, InstrumentType.HISTOGRAM, InstrumentType.UP_DOWN_COUNTER].every(
    (type) => select(type) === AggregationTemporality.CUMULATIVE,
  );
}
