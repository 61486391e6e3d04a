/**
 * The small interface through which summaries read traces back from the trace backend (DESIGN
 * Decision 16). Jaeger's `/api/v3` is the first implementation (`jaeger-reader.ts`); another
 * backend (Tempo, …) only has to turn its answer into these spans.
 */

export type AttributeValue = string | number | boolean | ReadonlyArray<string | number | boolean>;

export type SpanKindName = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';
export type SpanStatusName = 'unset' | 'ok' | 'error';

/** One span as the backend stored it. Times are ns since the epoch (bigint: they exceed 2^53). */
export interface StoredSpan {
  traceId: string;
  spanId: string;
  /** Empty when the span is a root. */
  parentSpanId: string;
  name: string;
  kind: SpanKindName;
  status: SpanStatusName;
  statusMessage?: string;
  startNs: bigint;
  endNs: bigint;
  attributes: Readonly<Record<string, AttributeValue>>;
  /** `service.name` of the span's resource. */
  service: string;
}

export interface TraceQuery {
  service: string;
  /** Traces with a span starting in [since, until]. */
  since: Date;
  until: Date;
  limit: number;
}

export interface TraceReader {
  /** Where it reads from, for messages: `Jaeger at http://…`. */
  readonly description: string;
  /** Every span of one trace (32-hex id), or null when the backend does not know the trace. */
  getTrace(traceId: string): Promise<StoredSpan[] | null>;
  /** Recent traces of a service, each as its spans (in no particular order). */
  findTraces(query: TraceQuery): Promise<StoredSpan[][]>;
}

/** The backend could not be asked (unreachable, timed out, or answered with an error): a 503. */
export class TraceBackendError extends Error {}
