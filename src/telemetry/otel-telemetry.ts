/**
 * The real OpenTelemetry implementation of `Telemetry`: wires the resource, tracer provider,
 * metrics and propagators built at startup, and starts request spans (`otel-request-span.ts`),
 * whose attempts are `otel-attempt-span.ts`. Incoming context is read by the server
 * (`server/request-context.ts`), not here.
 */
import { PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import type { MeterProvider, IMetricReader } from '@opentelemetry/sdk-metrics';
import type { BasicTracerProvider, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { ChosenIdGenerator } from './chosen-id-generator.js';
import { createMetrics } from './create-metrics.js';
import { createTracerProvider } from './create-tracer-provider.js';
import { DropReporter } from './drop-reporter.js';
import { createSampler } from './create-sampler.js';
import { emitSpan } from './emit-span.js';
import { feedbackToSpan } from './feedback-span.js';
import { logToSpan } from './log-span.js';
import { noopTelemetry } from './noop-telemetry.js';
import { startOtelRequestSpan } from './otel-request-span.js';
import { loadPricingTable } from './pricing.js';
import { readOtlpWorker } from './read-otlp-worker.js';
import { readPropagateUpstream } from './read-propagate-upstream.js';
import type { OtelConfig } from './read-otel-config.js';
import { shutdownWithDeadline } from './shutdown-with-deadline.js';
import { OffPath } from './off-path.js';
import type { SpanIdRegistry } from './span-id-registry.js';
import type { SpanKit } from './span-kit.js';
import { BREAKER_STATE_VALUE, targetAttributes } from './target-attributes.js';
import type { FeedbackVersion, IdentifiedLog, RequestSpan, RequestStart, SidegateTelemetry, TargetHealthReading } from './telemetry.js';
import { SPAN_EXPORT_WORKER_URL } from './worker-span-processor.js';

export interface OtelTelemetryDeps {
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  serviceVersion: string | undefined;
  spanProcessorOverride: SpanProcessor | undefined;
  /** The span export worker's entry; defaults to the built one next to this module. */
  exportWorkerUrl: URL | undefined;
  registry: SpanIdRegistry;
}

export class OtelTelemetry implements SidegateTelemetry {
  readonly config: OtelConfig;
  readonly #provider: BasicTracerProvider;
  readonly #kit: SpanKit;
  readonly #meterProvider: MeterProvider;
  readonly #metricsSource: IMetricReader;
  readonly #serializer = new PrometheusSerializer();
  readonly #drops: DropReporter;
  readonly spanIds: SpanIdRegistry;

  constructor(config: OtelConfig, deps: OtelTelemetryDeps) {
    this.config = config;
    this.spanIds = deps.registry;
    const resource = defaultResource().merge(
      resourceFromAttributes(
        Object.assign(
          {},
          config.resourceAttributes,
          { [ATTR_SERVICE_NAME]: config.serviceName },
          deps.serviceVersion !== undefined ? { [ATTR_SERVICE_VERSION]: deps.serviceVersion } : {},
        ),
      ),
    );
    const metrics = createMetrics(config, resource, deps.serviceVersion);
    this.#meterProvider = metrics.meterProvider;
    this.#metricsSource = metrics.metricsSource;
    this.#drops = new DropReporter(metrics.instruments.droppedSpans, deps.warn);

    const ids = new ChosenIdGenerator();
    const sampler = createSampler(config.sampler);
    this.#provider = createTracerProvider(config, {
      resource,
      idGenerator: ids,
      sampler,
      drops: this.#drops,
      warn: deps.warn,
      exportWorkerUrl: readOtlpWorker(deps.env) ? (deps.exportWorkerUrl ?? SPAN_EXPORT_WORKER_URL) : undefined,
      ...(deps.spanProcessorOverride !== undefined ? { spanProcessorOverride: deps.spanProcessorOverride } : {}),
    });
    this.#kit = {
      tracer: this.#provider.getTracer('sidegate', deps.serviceVersion),
      sampler,
      ids,
      registry: deps.registry,
      instruments: metrics.instruments,
      pricing: loadPricingTable(deps.env.SIDEGATE_PRICING_FILE),
      propagateUpstream: readPropagateUpstream(deps.env),
      capture: config.captureContent,
      offPath: new OffPath(),
    };
  }

  startRequest(start: RequestStart): RequestSpan {
    try {
      return startOtelRequestSpan(this.#kit, start);
    } catch {
      // Telemetry never hurts the request: an SDK surprise degrades to no span.
      return noopTelemetry.startRequest(start);
    }
  }

  recordLogs(logs: readonly IdentifiedLog[]): void {
    for (const log of logs) {
      try {
        emitSpan(this.#kit, logToSpan(log, this.#kit));
      } catch {
        // telemetry never hurts the request: one bad log costs only its span
      }
    }
  }

  recordFeedback(feedback: FeedbackVersion, atMs: number): void {
    try {
      emitSpan(this.#kit, feedbackToSpan(feedback, atMs));
    } catch {
      // never throw
    }
  }

  observeTargetHealth(read: () => Iterable<TargetHealthReading>): void {
    this.#kit.instruments.breakerState.addCallback((result) => {
      try {
        for (const reading of read()) result.observe(BREAKER_STATE_VALUE[reading.state], targetAttributes(reading));
      } catch {
        // never throw into the metric reader
      }
    });
  }

  async renderMetrics(): Promise<string> {
    this.#kit.offPath.flush(); // requests already answered are counted
    const { resourceMetrics } = await this.#metricsSource.collect();
    return this.#serializer.serialize(resourceMetrics);
  }

  async forceFlush(): Promise<void> {
    this.#kit.offPath.flush();
    await Promise.allSettled([this.#provider.forceFlush(), this.#meterProvider.forceFlush()]);
  }

  droppedSpans(): number {
    return this.#drops.total;
  }

  async shutdown(deadlineMs = 5000): Promise<void> {
    // The final flush is one more export: bounded by the exporter's own timeout as well, so a
    // collector that never answers holds the exit no longer than an export would wait for it.
    this.#kit.offPath.flush();
    const bound = Math.min(deadlineMs, this.config.traces.timeoutMillis, this.config.metrics.timeoutMillis);
    await shutdownWithDeadline([this.#provider, this.#meterProvider], bound);
  }
}
