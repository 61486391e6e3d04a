/**
 * A finished span as plain data, so it can cross to the export worker by structured clone, and
 * back into the `ReadableSpan` shape the SDK's exporters read. Only what an exporter reads is
 * carried (the fields of `ReadableSpan`); the resource is the same for every span of the process,
 * so it crosses once, when the worker starts. Trace states cross as their serialised header value.
 */
import type { Attributes, HrTime, Link, SpanContext, SpanKind, SpanStatus } from '@opentelemetry/api';
import { TraceState, type InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';

export interface ContextRecord {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
  traceState?: string;
}

export interface LinkRecord {
  context: ContextRecord;
  attributes?: Attributes;
  droppedAttributesCount?: number;
}

export interface SpanRecord {
  name: string;
  kind: SpanKind;
  context: ContextRecord;
  parent?: ContextRecord;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  links: LinkRecord[];
  events: TimedEvent[];
  scope: InstrumentationScope;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
}

function toContextRecord(context: SpanContext): ContextRecord {
  const record: ContextRecord = { traceId: context.traceId, spanId: context.spanId, traceFlags: context.traceFlags };
  if (context.isRemote !== undefined) record.isRemote = context.isRemote;
  if (context.traceState !== undefined) record.traceState = context.traceState.serialize();
  return record;
}

function toLinkRecord(link: Link): LinkRecord {
  const record: LinkRecord = { context: toContextRecord(link.context) };
  if (link.attributes !== undefined) record.attributes = link.attributes;
  if (link.droppedAttributesCount !== undefined) record.droppedAttributesCount = link.droppedAttributesCount;
  return record;
}

/**
 * Main thread, once per finished span: copies references only (attributes, events and times are
 * the span's own objects, frozen once it ended), so the cost is a few property reads.
 */
export function toSpanRecord(span: ReadableSpan): SpanRecord {
  const record: SpanRecord = {
    name: span.name,
    kind: span.kind,
    context: toContextRecord(span.spanContext()),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    links: span.links.length === 0 ? [] : span.links.map(toLinkRecord),
    events: span.events,
    scope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
  if (span.parentSpanContext !== undefined) record.parent = toContextRecord(span.parentSpanContext);
  return record;
}

function fromContextRecord(record: ContextRecord): SpanContext {
  const context: SpanContext = { traceId: record.traceId, spanId: record.spanId, traceFlags: record.traceFlags };
  if (record.isRemote !== undefined) context.isRemote = record.isRemote;
  if (record.traceState !== undefined) context.traceState = new TraceState(record.traceState);
  return context;
}

/** Worker side: the `ReadableSpan` the SDK's batch processor and OTLP exporter take. */
export function fromSpanRecord(record: SpanRecord, resource: Resource): ReadableSpan {
  const context = fromContextRecord(record.context);
  const span: ReadableSpan = {
    name: record.name,
    kind: record.kind,
    spanContext: () => context,
    startTime: record.startTime,
    endTime: record.endTime,
    duration: record.duration,
    status: record.status,
    attributes: record.attributes,
    links: record.links.map((link) => {
      const out: Link = { context: fromContextRecord(link.context) };
      if (link.attributes !== undefined) out.attributes = link.attributes;
      if (link.droppedAttributesCount !== undefined) out.droppedAttributesCount = link.droppedAttributesCount;
      return out;
    }),
    events: record.events,
    ended: true,
    resource,
    instrumentationScope: record.scope,
    droppedAttributesCount: record.droppedAttributesCount,
    droppedEventsCount: record.droppedEventsCount,
    droppedLinksCount: record.droppedLinksCount,
    ...(record.parent !== undefined ? { parentSpanContext: fromContextRecord(record.parent) } : {}),
  };
  return span;
}
