/**
 * Exports a span described after the fact (a log, a feedback) through the gateway's own SDK tracer,
 * so sampling, span limits, the batch processor and the exporter apply exactly as to request spans
 * (DESIGN Decision 16). Ids and times are the caller's: the trace and span ids go to the tracer
 * through the one-shot slots of the telemetry's `IdGenerator` (OTel JS asks for ids synchronously
 * inside `startSpan`), the parent through a remote span context, the times as explicit `HrTime`s.
 *
 * Decision 1 applies: a span id already used in its trace gets a fresh id; the requested id is kept
 * as `gateway.span_id` by the caller and the span links to the first holder.
 */
import {
  ROOT_CONTEXT,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type HrTime,
  type Link,
  type SpanKind,
} from '@opentelemetry/api';
import type { SpanKit } from './span-kit.js';

/** A finished span as the caller describes it; ids already mapped (Decision 2). */
export interface SpanRecord {
  name: string;
  kind: SpanKind;
  /** 32-hex trace id; undefined starts a new trace. */
  traceId?: string;
  /** 16-hex span id the caller asked for; undefined lets the SDK pick one. */
  spanId?: string;
  /** 16-hex id of the parent, in `traceId`. */
  parentSpanId?: string;
  startTime: HrTime;
  endTime: HrTime;
  attributes: Attributes;
  events?: ReadonlyArray<{ name: string; attributes: Attributes }>;
  /** ERROR with a message; unset otherwise. */
  error?: string;
}

/** What emitting needs of the span kit: the tracer, its id slots, and the reuse cache. */
export type EmitKit = Pick<SpanKit, 'tracer' | 'ids' | 'registry'>;

/** Milliseconds since the epoch (fractions kept to the microsecond) as an OTel `HrTime`. */
export function millisToHrTime(ms: number): HrTime {
  // A plain number would be read by the SDK as performance.now() when it predates process start.
  const micros = Math.round(ms * 1000);
  const seconds = Math.floor(micros / 1_000_000);
  return [seconds, (micros - seconds * 1_000_000) * 1000];
}

/** Starts and ends one span with the record's ids and times; returns the ids it got. Throws only on an SDK fault. */
export function emitSpan({ tracer, ids, registry }: EmitKit, record: SpanRecord): { traceId: string; spanId: string } {
  const traceId = record.traceId ?? ids.generateTraceId();
  const links: Link[] = [];
  let chosenSpanId: string | undefined;
  if (record.spanId !== undefined) {
    if (registry.claim(traceId, record.spanId)) chosenSpanId = record.spanId;
    else links.push({ context: { traceId, spanId: record.spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true } });
  }
  // The parent's sampled flag is unknown here; like x-gateway-parent-span-id, it is taken as sampled.
  const parent =
    record.parentSpanId === undefined
      ? ROOT_CONTEXT
      : trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: record.parentSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  ids.nextTraceId = record.parentSpanId === undefined ? traceId : undefined;
  ids.nextSpanId = chosenSpanId;
  let span;
  try {
    span = tracer.startSpan(record.name, { kind: record.kind, attributes: record.attributes, links, startTime: record.startTime }, parent);
  } finally {
    ids.nextTraceId = undefined;
    ids.nextSpanId = undefined;
  }
  if (span.isRecording()) {
    for (const event of record.events ?? []) span.addEvent(event.name, event.attributes, record.endTime);
  }
  if (record.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: record.error });
  span.end(record.endTime);
  const context = span.spanContext();
  return { traceId: context.traceId, spanId: context.spanId };
}
