/**
 * Span export off the event loop: on the main thread each finished, sampled span costs a push onto
 * a buffer; every `postEvery` spans, or `postAfterMs` after the first one waits, the buffer becomes
 * plain records (`span-record.ts`) posted in one message to a worker thread
 * (`span-export-worker.ts`), which runs the SDK's BatchSpanProcessor and OTLP exporter. Queue
 * limits, batching, timeouts and drop counts are the SDK's, in the worker; drops come back as
 * messages and are counted here as before. Posting in groups keeps the worker asleep between them
 * (each message wakes it) and each main-thread pause short (a group is copied in one go).
 *
 * The worker never keeps the process alive (unref). If it cannot start or dies, that is reported
 * once, the spans it held are counted as dropped (`export_failed`), and from then on spans are
 * exported on the main thread by the same pipeline (`fallback`): the gateway keeps its traces.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { TraceFlags } from '@opentelemetry/api';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { DropSink } from './drop-reporter.js';
import type { ExportWorkerData, FromExportWorker, ToExportWorker } from './export-worker-protocol.js';
import { toSpanRecord } from './span-record.js';

/**
 * The worker's entry next to this module (`dist/telemetry/span-export-worker.js`). Run from the
 * TypeScript sources (vitest) there is no compiled worker to start, so there spans are exported on
 * the main thread unless a test passes the URL of a built one.
 */
export const SPAN_EXPORT_WORKER_URL: URL | undefined = import.meta.url.endsWith('.js') ? new URL('./span-export-worker.js', import.meta.url) : undefined;

/**
 * The worker holds at most OTEL_BSP_MAX_QUEUE_SIZE spans and one serialised batch at a time; a
 * small young generation keeps its resident memory low (V8's default semi-space is sized for
 * throughput, not for a thread that wakes once per batch).
 */
/** A JSON null token: a value JSON cannot carry was written as null (or a string holds JSON). */
const JSON_NULL = /[[,:]null\b/;

const RESOURCE_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 };

export interface WorkerSpanProcessorOptions {
  workerUrl: URL;
  data: ExportWorkerData;
  drops: DropSink;
  warn: (message: string) => void;
  /** The main-thread pipeline, built only if the worker is lost. */
  fallback: () => SpanProcessor;
  /** Post as soon as this many spans wait (default 64). */
  postEvery?: number;
  /** Post at the latest this long after the first span of a group ended (default 20 ms). */
  postAfterMs?: number;
}

export class WorkerSpanProcessor implements SpanProcessor {
  readonly #options: WorkerSpanProcessorOptions;
  readonly #postEvery: number;
  readonly #postAfterMs: number;
  #worker: Worker | undefined;
  #buffer: ReadableSpan[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Spans posted to the worker and not yet sent or dropped: what is lost if the worker dies. */
  #inWorker = 0;
  #nextId = 1;
  readonly #waiting = new Map<number, () => void>();
  #fallback: SpanProcessor | undefined;
  #closing = false;
  /** Set when this side ends the worker, whose exit is then no loss. */
  #terminating = false;

  constructor(options: WorkerSpanProcessorOptions) {
    this.#options = options;
    this.#postEvery = options.postEvery ?? 64;
    this.#postAfterMs = options.postAfterMs ?? 20;
    try {
      // No inherited execArgv: the process's own flags (`--input-type`, `--import` of an agent, a
      // profiler) are not the exporter's business, and some stop a worker from starting at all.
      const worker = new Worker(options.workerUrl, { workerData: options.data, resourceLimits: RESOURCE_LIMITS, execArgv: [] });
      worker.on('message', (message: FromExportWorker) => this.#onMessage(message));
      worker.on('error', (error) => this.#lost(error));
      worker.on('exit', (code) => this.#lost(new Error(`exited with code ${code}`)));
      // After the listeners: adding a 'message' listener refs the worker's port again.
      worker.unref();
      this.#worker = worker;
    } catch (error) {
      this.#lost(error);
    }
  }

  /** True once spans go through the main-thread fallback (for tests and diagnostics). */
  get onMainThread(): boolean {
    return this.#fallback !== undefined;
  }

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.#fallback !== undefined) {
      this.#fallback.onEnd(span);
      return;
    }
    if (this.#closing) return;
    // Unsampled spans are never exported (the batch processor ignores them too): not worth a copy.
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    this.#buffer.push(span);
    if (this.#buffer.length >= this.#postEvery) this.#post();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(this.#postScheduled, this.#postAfterMs);
      this.#timer.unref();
    }
  }

  async forceFlush(): Promise<void> {
    if (this.#fallback !== undefined) return this.#fallback.forceFlush();
    this.#post();
    await this.#roundTrip('flush');
    // The worker may have been lost meanwhile; what it held is counted, what was left is here.
    await this.#fallbackIfLost()?.forceFlush();
  }

  async shutdown(): Promise<void> {
    if (this.#fallback !== undefined) return this.#fallback.shutdown();
    this.#post();
    this.#closing = true;
    await this.#roundTrip('shutdown');
    const worker = this.#worker;
    this.#worker = undefined;
    this.#terminating = true;
    await worker?.terminate();
    await this.#fallbackIfLost()?.shutdown();
  }

  /** Re-read after an await: the worker may have been lost meanwhile. */
  #fallbackIfLost(): SpanProcessor | undefined {
    return this.#fallback;
  }

  readonly #postScheduled = () => {
    this.#timer = undefined;
    this.#post();
  };

  #post(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const worker = this.#worker;
    if (this.#buffer.length === 0 || worker === undefined) return;
    const spans = this.#buffer;
    this.#buffer = [];
    try {
      const records = spans.map(toSpanRecord);
      const json = JSON.stringify(records);
      // JSON text is copied into the message as it is: about half the main thread's cost of a
      // structured clone of the same records, and without its occasional multi-millisecond
      // pauses. JSON writes NaN, ±Infinity and undefined array items as null; when a null token
      // shows (rare: a string holding JSON text trips it too), the records go by structured
      // clone instead, which keeps every value as it was. (A -0 attribute arrives as 0.)
      const message: ToExportWorker = JSON_NULL.test(json) ? { t: 'spans', spans: records } : { t: 'json', json };
      worker.postMessage(message);
      this.#inWorker += spans.length;
    } catch {
      // A value that cannot be sent (the SDK only keeps primitive attribute values, so this is
      // not expected): those spans are lost, and counted.
      this.#options.drops.record(spans.length, 'export_failed');
    }
  }

  #roundTrip(kind: 'flush' | 'shutdown'): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined) return Promise.resolve();
    const id = this.#nextId++;
    // While a flush is under way the worker holds the process open, as the export's own socket
    // does on the main thread: otherwise a process with nothing else left to do (the server
    // closed after SIGTERM) would exit before the final batch is sent. The wait is bounded by the
    // exporter's timeout in the worker and, at exit, by `shutdownWithDeadline`.
    if (this.#waiting.size === 0) worker.ref();
    return new Promise<void>((resolve) => {
      this.#waiting.set(id, () => {
        this.#waiting.delete(id);
        if (this.#waiting.size === 0) worker.unref();
        resolve();
      });
      worker.postMessage({ t: kind, id } satisfies ToExportWorker);
    });
  }

  #onMessage(message: FromExportWorker): void {
    switch (message.t) {
      case 'drop':
        this.#inWorker = Math.max(0, this.#inWorker - message.count);
        this.#options.drops.record(message.count, message.reason);
        return;
      case 'sent':
        this.#inWorker = Math.max(0, this.#inWorker - message.count);
        return;
      case 'done':
        this.#waiting.get(message.id)?.();
        return;
    }
  }

  /** The worker could not start, threw, or exited unasked: report once and export here from now on. */
  #lost(error: unknown): void {
    if (this.#fallback !== undefined || this.#terminating) return;
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.terminate();
    for (const resolve of [...this.#waiting.values()]) resolve();
    const reason = error instanceof Error ? error.message : String(error);
    this.#options.warn(`span export worker stopped (${reason}); exporting spans on the main thread from now on`);
    this.#options.drops.record(this.#inWorker, 'export_failed');
    this.#inWorker = 0;
    try {
      this.#fallback = this.#options.fallback();
    } catch (fallbackError) {
      // The exporter cannot be built here either: spans are dropped (and counted) from now on.
      this.#options.warn(`span export on the main thread failed too (${fallbackError instanceof Error ? fallbackError.message : String(fallbackError)}); spans are dropped`);
      this.#fallback = new DroppingProcessor(this.#options.drops);
    }
    const left = this.#buffer;
    this.#buffer = [];
    for (const span of left) this.#fallback.onEnd(span);
  }
}

/** Last resort when no exporter can be built: every sampled span is counted as dropped. */
class DroppingProcessor implements SpanProcessor {
  constructor(private readonly drops: DropSink) {}
  onStart(): void {}
  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) this.drops.record(1, 'export_failed');
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
