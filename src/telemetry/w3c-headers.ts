import { ROOT_CONTEXT, defaultTextMapSetter, trace, type SpanContext } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const injector = new W3CTraceContextPropagator();

/** `traceparent` (and `tracestate`, when the context has one) naming `context`, through OTel's own propagator. */
export function w3cHeaders(context: SpanContext): Record<string, string> {
  const carrier: Record<string, string> = {};
  injector.inject(trace.setSpanContext(ROOT_CONTEXT, context), carrier, defaultTextMapSetter);
  return carrier;
}
