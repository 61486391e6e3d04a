import { SpanKind, SpanStatusCode, TraceFlags, context, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { fromSpanRecord, toSpanRecord } from './span-record.js';

/** What an OTLP exporter reads of a span (otlp-transformer's sdkSpanToOtlpSpan), as plain data. */
function exported(span: ReadableSpan) {
  const ctx = span.spanContext();
  const state = (c: { traceState?: TraceState | { serialize(): string } }) => c.traceState?.serialize();
  return {
    name: span.name,
    kind: span.kind,
    ids: [ctx.traceId, ctx.spanId, ctx.traceFlags, ctx.isRemote, state(ctx)],
    parent: span.parentSpanContext && { ...span.parentSpanContext, traceState: state(span.parentSpanContext) },
    times: [span.startTime, span.endTime, span.duration],
    status: span.status,
    attributes: span.attributes,
    events: span.events,
    links: span.links.map((l) => ({ ...l, context: { ...l.context, traceState: state(l.context) } })),
    scope: span.instrumentationScope,
    dropped: [span.droppedAttributesCount, span.droppedEventsCount, span.droppedLinksCount],
    resource: span.resource.attributes,
  };
}

describe('span records', () => {
  it('survive a structured clone and come back as the same ReadableSpan fields', () => {
    const resource = resourceFromAttributes({ 'service.name': 'records' });
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ resource, spanProcessors: [new SimpleSpanProcessor(exporter)], spanLimits: { attributeCountLimit: 3 } });
    const tracer = provider.getTracer('sidegate', '1.0.0', { schemaUrl: 'https://opentelemetry.io/schemas/1.37.0' });
    const parent = trace.setSpanContext(context.active(), {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('a=1,b=2'),
    });
    const span = tracer.startSpan(
      'chat m',
      {
        kind: SpanKind.SERVER,
        attributes: { s: 'x', n: 1.5, b: false, dropped: 'over the count limit' },
        links: [{ context: { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 0, traceState: new TraceState('k=v') }, attributes: { why: 'reuse' } }],
      },
      parent,
    );
    span.addEvent('evt', { list: ['a', 'b'], nan: Number.NaN });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    span.end();
    const [original] = exporter.getFinishedSpans();
    const rebuilt = fromSpanRecord(structuredClone(toSpanRecord(original!)), resource);
    expect(exported(rebuilt)).toStrictEqual(exported(original!));
    expect(rebuilt.droppedAttributesCount).toBe(1);
    expect(rebuilt.resource).toBe(resource);
    expect(rebuilt.ended).toBe(true);
  });
});
