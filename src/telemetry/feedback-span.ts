/**
 * One version of a feedback (`POST /v1/feedback`, `PUT /v1/feedback/{id}`) → a span named
 * `feedback` in the trace it rates (issue 8 item 2). Pure. The span is a root of that trace with no
 * duration, recorded when the feedback arrived; `gateway.feedback.id`, `.value` and `.weight` let
 * a summary count the latest version of each id, and the metadata goes in `gateway.metadata.<key>`.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import type { FeedbackVersion } from './telemetry.js';
import { ATTR_GATEWAY_TRACE_ID, METADATA_ATTRIBUTE_PREFIX } from './gateway-attributes.js';
import { millisToHrTime, type SpanRecord } from './emit-span.js';

export const ATTR_GATEWAY_FEEDBACK_ID = 'gateway.feedback.id';
export const ATTR_GATEWAY_FEEDBACK_VALUE = 'gateway.feedback.value';
export const ATTR_GATEWAY_FEEDBACK_WEIGHT = 'gateway.feedback.weight';

/** `atMs`: when the feedback arrived, ms since the epoch. */
export function feedbackToSpan(feedback: FeedbackVersion, atMs: number): SpanRecord {
  const attributes: Attributes = {
    [ATTR_GATEWAY_FEEDBACK_ID]: feedback.id,
    [ATTR_GATEWAY_FEEDBACK_VALUE]: feedback.value,
    [ATTR_GATEWAY_FEEDBACK_WEIGHT]: feedback.weight,
  };
  if (feedback.clientTraceId !== undefined) attributes[ATTR_GATEWAY_TRACE_ID] = feedback.clientTraceId;
  for (const [key, value] of Object.entries(feedback.metadata)) attributes[`${METADATA_ATTRIBUTE_PREFIX}${key}`] = value;
  const at = millisToHrTime(atMs);
  return { name: 'feedback', kind: SpanKind.INTERNAL, traceId: feedback.traceId, startTime: at, endTime: at, attributes };
}
