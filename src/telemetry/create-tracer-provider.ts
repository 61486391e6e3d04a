/**
 * The tracer provider: sampler, span limits, chosen-id generator and the span processors of the
 * configured exporters (OTLP, batched with drop counting, in the export worker or on the main
 * thread; or console). Built once at startup.
 */
import type { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type IdGenerator,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { DropReporter } from './drop-reporter.js';
import { createOtlpSpanPipeline } from './otlp-span-pipeline.js';
import type { OtelConfig } from './read-otel-config.js';
import { WorkerSpanProcessor } from './worker-span-processor.js';

export interface TracerProviderOptions {
  resource: Resource;
  idGenerator: IdGenerator;
  /** `createSampler(config.sampler)`, shared with the span kit (late-span.ts asks it up front). */
  sampler: Sampler;
  drops: DropReporter;
  warn: (message: string) => void;
  /**
   * The span export worker's entry (`SPAN_EXPORT_WORKER_URL`), or undefined to export OTLP on the
   * main thread (the default: `SIDEGATE_OTLP_WORKER` unset or false; or running from sources without a build).
   */
  exportWorkerUrl: URL | undefined;
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
      const onMainThread = () => createOtlpSpanPipeline(config.traces, config.bsp, options.drops).processor;
      if (options.exportWorkerUrl === undefined) {
        spanProcessors.push(onMainThread());
        continue;
      }
      const { attributes, schemaUrl } = options.resource;
      spanProcessors.push(
        new WorkerSpanProcessor({
          workerUrl: options.exportWorkerUrl,
          data: { traces: config.traces, bsp: config.bsp, resource: { attributes, ...(schemaUrl !== undefined ? { schemaUrl } : {}) } },
          drops: options.drops,
          warn: options.warn,
          fallback: onMainThread,
        }),
      );
    }
  }
  return new BasicTracerProvider({
    resource: options.resource,
    sampler: options.sampler,
    spanLimits: config.spanLimits,
    idGenerator: options.idGenerator,
    spanProcessors,
  });
}
