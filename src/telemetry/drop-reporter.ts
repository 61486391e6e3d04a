/**
 * Counts spans that never reach the collector (queue full, export failed) and warns about them
 * at most once a minute, so a dead collector costs a counter and a log line, never a request.
 * `QueueGuard` and `CountingExporter` wrap the SDK's BatchSpanProcessor and exporter without
 * reaching into their internals: the guard keeps its own count of spans waiting in the queue and
 * drops (and counts) exactly when the processor would drop.
 */
import { TraceFlags, type Context, type Counter } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export const WARN_INTERVAL_MS = 60_000;

export type DropReason = 'queue_full' | 'export_failed';

/** Where dropped spans are counted: the `DropReporter`, or (in the export worker) a message to it. */
export interface DropSink {
  record(count: number, reason: DropReason): void;
}

export class DropReporter implements DropSink {
  #pending = 0;
  #lastWarn = -Infinity;
  #total = 0;

  constructor(
    private readonly counter: Counter | undefined,
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spans dropped since startup. */
  get total(): number {
    return this.#total;
  }

  record(count: number, reason: DropReason): void {
    if (count <= 0) return;
    this.#total += count;
    this.#pending += count;
    this.counter?.add(count, { reason });
    const now = this.now();
    if (now - this.#lastWarn >= WARN_INTERVAL_MS) {
      this.#lastWarn = now;
      this.warn(`dropped ${this.#pending} span(s) (latest reason: ${reason}); is the OTLP collector reachable?`);
      this.#pending = 0;
    }
  }
}

/** Wraps an exporter: failed exports count their spans as dropped; tells the guard when a batch leaves the queue. */
export class CountingExporter implements SpanExporter {
  onBatchTaken: (count: number) => void = () => {};
  /** Called with the size of each batch the collector accepted. */
  onExported: (count: number) => void = () => {};

  constructor(
    private readonly inner: SpanExporter,
    private readonly drops: DropSink,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.onBatchTaken(spans.length);
    try {
      this.inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) this.drops.record(spans.length, 'export_failed');
        else this.onExported(spans.length);
        resultCallback(result);
      });
    } catch (error) {
      this.drops.record(spans.length, 'export_failed');
      resultCallback({ code: ExportResultCode.FAILED, error: error as Error });
    }
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** In front of a BatchSpanProcessor whose exporter is `exporter`: counts queue-full drops. */
export class QueueGuard implements SpanProcessor {
  #queued = 0;

  constructor(
    private readonly inner: SpanProcessor,
    private readonly exporter: CountingExporter,
    private readonly maxQueueSize: number,
    private readonly drops: DropSink,
  ) {
    exporter.onBatchTaken = (count) => {
      this.#queued = Math.max(0, this.#queued - count);
    };
  }

  /** Spans in the processor's queue, not yet taken by an export. */
  get queued(): number {
    return this.#queued;
  }

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    // The batch processor ignores unsampled spans; only sampled ones take a queue slot.
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.#queued >= this.maxQueueSize) {
      this.drops.record(1, 'queue_full');
      return;
    }
    this.#queued += 1;
    this.inner.onEnd(span);
  }

  /**
   * The batch processor's flush exports what is queued but does not wait for an export already
   * under way: the exporter's flush does.
   */
  async forceFlush(): Promise<void> {
    await this.inner.forceFlush();
    await this.exporter.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}
