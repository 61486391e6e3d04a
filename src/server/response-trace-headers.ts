/**
 * The trace headers of every answer of an operation (DESIGN "Public contract", Decision 2):
 * `x-gateway-trace-id` echoes the client's own id (or the hex trace id when none was given),
 * `traceparent` names the gateway's request span. Both come from the request context, so they
 * are the same with telemetry on or off; only the sampled flag is the tracer's when it ran.
 */
import { TraceFlags } from '@opentelemetry/api';
import type { RequestTrace } from '../telemetry/telemetry.js';
import { w3cHeaders } from '../telemetry/w3c-headers.js';

export function responseTraceHeaders(ids: RequestTrace, sampled: boolean | undefined): Record<string, string> {
  const traceFlags = sampled === undefined ? ids.traceFlags : sampled ? TraceFlags.SAMPLED : TraceFlags.NONE;
  const { traceparent } = w3cHeaders({ traceId: ids.traceId, spanId: ids.spanId, traceFlags, isRemote: false });
  const out: Record<string, string> = { 'x-gateway-trace-id': ids.clientTraceId ?? ids.traceId };
  if (traceparent !== undefined) out.traceparent = traceparent;
  return out;
}
