import { ROOT_CONTEXT, defaultTextMapSetter, trace, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const injector = new W3CTraceContextPropagator();

/** `traceparent` (and `tracestate`) of a span, through OTel's own propagator. */
export function w3cHeaders(span: Span, only?: 'traceparent'): Record<string, string> {
  const carrier: Record<string, string> = {};
  injector.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
  if (only === 'traceparent') return carrier.traceparent === undefined ? {} : { traceparent: carrier.traceparent };
  return carrier;
}
