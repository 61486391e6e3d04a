/**
 * The OTLP/HTTP protobuf span exporter (the default protocol), serialising a batch in slices that
 * yield to the event loop between them, then sending the batch in one POST.
 *
 * Why: the SDK's `OTLPTraceExporter` serialises a whole batch synchronously inside `export()`, and
 * the batch processor calls `export()` from the `onEnd` of the span that fills the batch, so every
 * request whose socket became readable meanwhile waited behind the whole batch. Sending each
 * slice as its own export instead costs a POST per slice (about 100 µs of CPU each here, measured
 * with bench/export-pause.mjs), so the slices are joined into one request body.
 *
 * Slices grow with the processor's backlog: a quarter of the spans queued behind the batch, never
 * fewer than `sliceSize`. Fixed slices of 8 cap export at 8 spans per turn of the event loop, and at
 * saturation a turn ends more spans than that: the queue filled and more than half the spans were
 * dropped at the bench's max throughput. In proportion, a short backlog (an export that waited on
 * its POST) is still worked off in small slices, and a growing one in slices large enough to catch
 * up (docs/performance.md, "Issue 25, fifth round").
 *
 * Nothing here encodes OTLP: every byte comes from the SDK's `ProtobufTraceSerializer`, and the
 * POST goes through the SDK's own export delegate, configured exactly as `OTLPTraceExporter`
 * configures it (the same options, environment, retries, timeout, compression, concurrency limit
 * and exporter metrics). Only the last step differs: the delegate's transport sends the POST with
 * undici rather than node:http (undici-export-transport.ts says why and how it answers alike).
 * Joining works because an `ExportTraceServiceRequest` is `repeated ResourceSpans resource_spans
 * = 1`: concatenated serialised messages parse as one message whose repeated fields are the
 * concatenation (https://protobuf.dev/programming-guides/encoding/#last-one-wins), so the
 * collector receives one ResourceSpans per slice, each with its resource.
 */
import { createRequire } from 'node:module';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { IOtlpExportDelegate, OTLPExporterNodeConfigBase } from '@opentelemetry/otlp-exporter-base';
import type { ISerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createUndiciExportDelegate } from './undici-export-transport.js';

const requireSdk = createRequire(import.meta.url);

/** A batch serialised slice by slice, joined: what the export delegate sends. */
interface SerialisedBatch {
  bytes: Uint8Array;
  spans: number;
}

/** A slice is at least this share of the backlog: 4 works a queue off in about four turns. */
const BACKLOG_SHARE = 4;

/** `OTLPTraceExporter`'s component type (exporter-trace-otlp-proto's semconv.ts). */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

export class SlicedProtobufTraceExporter implements SpanExporter {
  readonly #delegate: IOtlpExportDelegate<SerialisedBatch>;
  readonly #serialise: (spans: ReadableSpan[]) => Uint8Array | undefined;

  constructor(
    /** What `OTLPTraceExporter` takes (create-otlp-exporters.ts builds the same for both). */
    options: OTLPExporterNodeConfigBase,
    private readonly sliceSize: number,
    /** Spans waiting in the batch processor's queue behind the batch being exported. */
    private readonly backlog: () => number = () => 0,
  ) {
    // CommonJS packages, loaded synchronously as create-otlp-exporters.ts loads the exporters.
    const { ProtobufTraceSerializer } = requireSdk('@opentelemetry/otlp-transformer') as typeof import('@opentelemetry/otlp-transformer');
    this.#serialise = (spans) => ProtobufTraceSerializer.serializeRequest(spans);
    const passThrough: ISerializer<SerialisedBatch, unknown> = {
      serializeRequest: (batch) => batch.bytes,
      deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
    };
    this.#delegate = createUndiciExportDelegate(options, {
      signal: 'traces',
      contentType: 'application/x-protobuf',
      serializer: passThrough,
      componentType: COMPONENT_TYPE,
      metricsHelper: { name: 'span', countItems: (batch: SerialisedBatch) => batch.spans },
    });
  }

  /**
   * Batches still being serialised: not yet in the delegate's queue, which its flush waits for.
   * An array, not a Set: a Set added to and deleted from all the time chains its rebuilt tables,
   * which the GC then promotes one after another (server/track-inflight.ts).
   */
  readonly #serialising: Array<Promise<void>> = [];

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    const handedOn = this.#serialiseInSlices(spans).then(
      (bytes) => this.#delegate.export({ bytes, spans: spans.length }, resultCallback),
      (error: unknown) => resultCallback({ code: ExportResultCode.FAILED, error: error as Error }),
    );
    this.#serialising.push(handedOn);
    void handedOn.then(() => this.#serialising.splice(this.#serialising.indexOf(handedOn), 1));
  }

  /** The SDK's serialisation of `spans`, a slice per macrotask, joined. */
  #serialiseInSlices(spans: ReadableSpan[]): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const parts: Uint8Array[] = [];
      let bytes = 0;
      let from = 0;
      const next = (): void => {
        const size = Math.max(1, this.sliceSize, Math.ceil(this.backlog() / BACKLOG_SHARE));
        try {
          const part = this.#serialise(spans.slice(from, from + size));
          if (part !== undefined) {
            parts.push(part);
            bytes += part.length;
          }
        } catch (error) {
          reject(error);
          return;
        }
        from += size;
        if (from < spans.length) setImmediate(next);
        else resolve(parts.length === 1 ? parts[0]! : Buffer.concat(parts, bytes));
      };
      setImmediate(next);
    });
  }

  /** Waits for batches being serialised to reach the delegate, then for the delegate's exports. */
  async forceFlush(): Promise<void> {
    await Promise.all(this.#serialising);
    await this.#delegate.forceFlush();
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.#serialising);
    await this.#delegate.shutdown();
  }
}
