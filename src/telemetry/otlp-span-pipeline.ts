/**
 * The OTLP half of span export, the same wherever it runs (the export worker, or the main thread
 * when the worker is off or lost): the SDK's BatchSpanProcessor with the `OTEL_BSP_*` settings, in
 * front of the OTLP exporter of the configured protocol, with queue-full and failed-export drops
 * counted into `drops`.
 */
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createTraceExporter } from './create-otlp-exporters.js';
import { CountingExporter, QueueGuard, type DropSink } from './drop-reporter.js';
import type { OtelConfig, OtlpSignalConfig } from './read-otel-config.js';

export interface OtlpSpanPipeline {
  processor: SpanProcessor;
  exporter: CountingExporter;
}

export function createOtlpSpanPipeline(signal: OtlpSignalConfig, bsp: OtelConfig['bsp'], drops: DropSink): OtlpSpanPipeline {
  // The guard counts the spans queued behind the batch being exported; the exporter reads it.
  let guard: QueueGuard | undefined;
  const exporter = new CountingExporter(createTraceExporter(signal, () => guard?.queued ?? 0), drops);
  const batch = new BatchSpanProcessor(exporter, {
    scheduledDelayMillis: bsp.scheduledDelayMillis,
    exportTimeoutMillis: bsp.exportTimeoutMillis,
    maxQueueSize: bsp.maxQueueSize,
    maxExportBatchSize: Math.min(bsp.maxExportBatchSize, bsp.maxQueueSize),
  });
  guard = new QueueGuard(batch, exporter, bsp.maxQueueSize, drops);
  return { processor: guard, exporter };
}
