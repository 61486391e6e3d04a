/**
 * The trace headers of every answer of an operation (DESIGN "Public contract", Decision 2):
 * `x-gateway-trace-id` echoes the client's own id (or the hex trace id when none was given),
 * `traceparent` names the gateway's request span. Both come from the request context, so they
 * are the same with telemetry on or off; only the sampled flag is the tracer's when it ran.
 */
import { ROOT_CONTEXT, TraceFlags, defaultTextMapSetter, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { RequestTrace } from '../telemetry/telemetry.js';

const propagator = new W3CTraceContextPropagator();

export function responseTraceHeaders(ids: RequestTrace, sampled: boolean | undefined): Record<string, string> {
  const carrier: Record<string, string> = {};
  const traceFlags = sampled === undefined ? ids.traceFlags : sampled ? TraceFlags.SAMPLED : TraceFlags.NONE;
  propagator.inject(
    trace.setSpanContext(ROOT_CONTEXT, { traceId: ids.traceId, spanId: ids.spanId, traceFlags, isRemote: false }),
    carrier,
    defaultTextMapSetter,
  );
  const out: Record<string, string> = { 'x-gateway-trace-id': ids.clientTraceId ?? ids.traceId };
  if (carrier.traceparent !== undefined) out.traceparent = carrier.traceparent;
  return out;
}
