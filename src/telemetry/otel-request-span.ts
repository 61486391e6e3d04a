/**
 * The request span (SERVER), one per call (DESIGN "Tracing model", Decisions 1–4): named
 * `x-gateway-span-name` or `{operation} {model}`, filed under the incoming context with the ids
 * the request context chose, carrying the logical call's GenAI attributes and metadata; its attempts are
 * children. Also records `gen_ai.server.request.duration`. Never throws from its methods.
 */
import { performance } from 'node:perf_hooks';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace, type Attributes, type HrTime, type Link } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
} from '@opentelemetry/semantic-conventions';
import { ClientAbortError } from '../errors.js';
import { errorTypeOf, statusMessageOf } from './error-type-of.js';
import {
  ATTR_GATEWAY_ATTEMPTS,
  ATTR_GATEWAY_SPAN_ID,
  ATTR_GATEWAY_SKIP_REASON,
  ATTR_GATEWAY_SKIP_RETRY_IN_MS,
  ATTR_GATEWAY_TARGET_INDEX,
  ATTR_GATEWAY_TARGETS_SKIPPED,
  ATTR_GATEWAY_TRACE_ID,
  EVENT_TARGET_SKIPPED,
  METADATA_ATTRIBUTE_PREFIX,
} from './gateway-attributes.js';
import { getInputContentAttributes, getRequestAttributes, getResponseAttributes } from './gen-ai-attributes.js';
import { noopTelemetry } from './noop-telemetry.js';
import { LateSpan } from './late-span.js';
import { startOtelAttemptSpan, type OtelAttemptSpan } from './otel-attempt-span.js';
import { ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_REQUEST_MODEL, ATTR_GEN_AI_RESPONSE_MODEL } from './semconv-incubating.js';
import type { SpanKit } from './span-kit.js';
import { targetAttributes } from './target-attributes.js';
import type { AttemptSpan, AttemptStart, RequestEnd, RequestSpan, RequestStart, TargetSkip } from './telemetry.js';

// Span times come from one monotonic clock (`hrTime()`: performance.timeOrigin + now, ns), passed
// explicitly at start and end. Left to itself the SDK anchors each span's start on Date.now()
// (whole milliseconds), so back-to-back attempts could appear to overlap by up to 1 ms in Jaeger.
export function startOtelRequestSpan(kit: SpanKit, start: RequestStart): RequestSpan {
  const { trace: ids, metadata } = start.context;
  const startTime = hrTime();
  // The ids are the request context's (Decision 1 is applied there); the SDK is handed them.
  const links: Link[] = [];
  if (ids.reusedSpanId !== undefined) {
    links.push({ context: { traceId: ids.traceId, spanId: ids.reusedSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true } });
  }
  // Made off the request path, with the decision taken now (late-span.ts).
  const span = new LateSpan(kit, {
    name: ids.spanName ?? (start.model !== '' ? `${start.operation} ${start.model}` : start.operation),
    kind: SpanKind.SERVER,
    parent: ids.parent !== undefined ? trace.setSpanContext(ROOT_CONTEXT, ids.parent) : ROOT_CONTEXT,
    traceId: ids.traceId,
    spanId: ids.spanId,
    links,
    startTime,
  });
  let requestAttributes: Attributes = {};
  if (span.recording) {
    if (start.chat !== undefined) requestAttributes = getRequestAttributes(start.chat);
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: start.operation,
      [ATTR_GEN_AI_REQUEST_MODEL]: start.model,
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      [ATTR_HTTP_ROUTE]: start.route,
    };
    if (ids.clientTraceId !== undefined) attributes[ATTR_GATEWAY_TRACE_ID] = ids.clientTraceId;
    if (ids.clientSpanId !== undefined) attributes[ATTR_GATEWAY_SPAN_ID] = ids.clientSpanId;
    // Built now, from the request as it arrived; handed to the SDK off the request path (off-path.ts):
    // each `setAttributes` sanitises every value, work the upstream request need not wait for.
    // Set after start, not passed to `startSpan`: the SDK sanitises start attributes twice (copying
    // them each time) before the span checks each one again; no sampler we build reads them.
    const extra = start.attributes as Attributes | undefined;
    let content: Attributes | undefined;
    if (kit.capture !== 'none' && (start.chat !== undefined || start.contentAttributes !== undefined)) {
      content = Object.assign(
        {},
        start.chat !== undefined ? getInputContentAttributes(start.chat.messages) : undefined,
        start.contentAttributes as Attributes | undefined,
      );
    }
    kit.offPath.defer(() => {
      const sdk = span.sdk;
      if (sdk === undefined) return;
      sdk.setAttributes(attributes);
      sdk.setAttributes(requestAttributes);
      if (extra !== undefined) sdk.setAttributes(extra);
      // The request context froze `metadata`: read later, it is what arrived.
      for (const [key, value] of Object.entries(metadata)) sdk.setAttribute(`${METADATA_ATTRIBUTE_PREFIX}${key}`, value);
      if (content === undefined) return;
      if (kit.capture === 'span' || kit.capture === 'span_and_event') sdk.setAttributes(content);
      if (kit.capture === 'event' || kit.capture === 'span_and_event') sdk.addEvent('gen_ai.client.inference.operation.details', content, startTime);
    });
  }
  return new OtelRequestSpan(kit, span, start.operation, start.model, requestAttributes);
}

class OtelRequestSpan implements RequestSpan {
  readonly #startedAt = performance.now();
  readonly #open = new Set<OtelAttemptSpan>();
  #ended = false;

  constructor(
    private readonly kit: SpanKit,
    private readonly span: LateSpan,
    private readonly operation: string,
    private readonly model: string,
    /** `gen_ai.request.*` of the logical call, repeated on each attempt (the semconv inference span). */
    private readonly requestAttributes: Attributes,
  ) {}

  sampled(): boolean {
    return (this.span.context.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
  }

  startAttempt(start: AttemptStart): AttemptSpan {
    try {
      const attempt = startOtelAttemptSpan(this.kit, this.span, start, this.requestAttributes);
      this.#open.add(attempt);
      attempt.onEnd = () => this.#open.delete(attempt);
      return attempt;
    } catch {
      return noopTelemetry.startRequest({} as RequestStart).startAttempt(start);
    }
  }

  targetSkipped(skip: TargetSkip): void {
    if (this.#ended) return;
    try {
      const attrs = targetAttributes(skip);
      attrs[ATTR_GATEWAY_SKIP_REASON] = skip.reason;
      const at = hrTime();
      this.kit.offPath.defer(() => {
        // An event, not an attempt span: nothing was sent (DESIGN Decision 20).
        const sdk = this.span.sdk;
        if (sdk !== undefined) {
          sdk.addEvent(
            EVENT_TARGET_SKIPPED,
            Object.assign({}, attrs, { [ATTR_GATEWAY_TARGET_INDEX]: skip.targetIndex, [ATTR_GATEWAY_SKIP_RETRY_IN_MS]: skip.retryInMs }),
            at,
          );
        }
        this.kit.instruments.targetSkips.add(1, attrs);
      });
    } catch {
      // never throw
    }
  }

  end(result: RequestEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      // No span is left open: an attempt the router never ended shares the request's fate.
      for (const attempt of [...this.#open]) attempt.end({ error: result.error ?? new ClientAbortError() });
      // The times now; the rest once the answer is written (off-path.ts).
      const endTime = hrTime();
      const seconds = (performance.now() - this.#startedAt) / 1000;
      this.kit.offPath.run(() => this.finish(result, endTime, seconds));
    } catch {
      // never throw from end
    }
  }

  private finish(result: RequestEnd, endTime: HrTime, seconds: number): void {
    const errorType = errorTypeOf(result.error, result.status);
    const span = this.span.sdk;
    if (span !== undefined) {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
      span.setAttribute(ATTR_GATEWAY_ATTEMPTS, result.attempts);
      if (result.finalTarget !== undefined) span.setAttribute(ATTR_GATEWAY_TARGET_INDEX, result.finalTarget);
      if (result.skippedTargets !== undefined) span.setAttribute(ATTR_GATEWAY_TARGETS_SKIPPED, result.skippedTargets);
      if (result.outcome !== undefined) span.setAttributes(getResponseAttributes(result.outcome));
      if (errorType !== undefined) span.setAttribute(ATTR_ERROR_TYPE, errorType);
      // Decision 4: a 4xx is the client's doing (status unset); a 5xx or an abort is an error.
      if (result.error instanceof ClientAbortError || result.status >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: statusMessageOf(result.error, result.status) });
      }
      span.end(endTime);
    }
    const attrs: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: this.operation,
      [ATTR_GEN_AI_REQUEST_MODEL]: this.model,
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: result.status,
    };
    if (result.outcome?.responseModel !== undefined) attrs[ATTR_GEN_AI_RESPONSE_MODEL] = result.outcome.responseModel;
    if (errorType !== undefined) attrs[ATTR_ERROR_TYPE] = errorType;
    // Request and attempt counts are the `_count` of these histograms: no separate counters, since
    // each recorded instrument costs an attribute hash per metric reader on the hot path.
    this.kit.instruments.requestDuration.record(seconds, attrs);
  }
}
