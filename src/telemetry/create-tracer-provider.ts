/**
 * The tracer provider: sampler, span limits, chosen-id generator and the span processors of the
 * configured exporters (batched OTLP with drop counting, or console). Built once at startup.
 */
import type { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type IdGenerator,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createTraceExporter } from './create-otlp-exporters.js';
import { createSampler } from './create-sampler.js';
import { CountingExporter, QueueGuard, type DropReporter } from './drop-reporter.js';
import type { OtelConfig } from './read-otel-config.js';

export interface TracerProviderOptions {
  resource: Resource;
  idGenerator: IdGenerator;
  drops: DropReporter;
  /** Replaces the OTLP/console span processors (tests: `SimpleSpanProcessor(InMemorySpanExporter)`). */
  spanProcessorOverride?: SpanProcessor;
}

export function createTracerProvider(config: OtelConfig, options: TracerProviderOptions): BasicTracerProvider {
  const spanProcessors: SpanProcessor[] = [];
  if (options.spanProcessorOverride !== undefined) spanProcessors.push(options.spanProcessorOverride);
  else {
    for (const kind of config.tracesExporters) {
      if (kind === 'console') {
        spanProcessors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
        continue;
      }
      const exporter = new CountingExporter(createTraceExporter(config.traces), options.drops);
      const batch = new BatchSpanProcessor(exporter, {
        ...config.bsp,
        maxExportBatchSize: Math.min(config.bsp.maxExportBatchSize, config.bsp.maxQueueSize),
      });
      spanProcessors.push(new QueueGuard(batch, exporter, config.bsp.maxQueueSize, options.drops));
    }
  }
  return new BasicTracerProvider({
    resource: options.resource,
    sampler: createSampler(config.sampler),
    spanLimits: config.spanLimits,
    idGenerator: options.idGenerator,
    spanProcessors,
  });
}
