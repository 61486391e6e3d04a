/** What the main thread and the span export worker say to each other (types only: no code crosses). */
import type { Attributes } from '@opentelemetry/api';
import type { DropReason } from './drop-reporter.js';
import type { OtelConfig, OtlpSignalConfig } from './read-otel-config.js';
import type { SpanRecord } from './span-record.js';

/** `workerData`: everything the worker needs to build the same exporter the main thread would. */
export interface ExportWorkerData {
  traces: OtlpSignalConfig;
  bsp: OtelConfig['bsp'];
  /** The process's resource, sent once instead of with every span. */
  resource: { attributes: Attributes; schemaUrl?: string };
}

export type ToExportWorker =
  /** A group of span records as JSON text (the usual form: the cheapest to send and to read). */
  | { t: 'json'; json: string }
  /** The same by structured clone, when JSON would change a value (see `WorkerSpanProcessor`). */
  | { t: 'spans'; spans: SpanRecord[] }
  | { t: 'flush'; id: number }
  | { t: 'shutdown'; id: number };

export type FromExportWorker =
  /** Spans the worker dropped (queue full, export failed): counted by the main thread's DropReporter. */
  | { t: 'drop'; count: number; reason: DropReason }
  /** Spans the collector accepted. */
  | { t: 'sent'; count: number }
  /** The flush or shutdown `id` finished. */
  | { t: 'done'; id: number };
