/**
 * The attempt span (CLIENT), one per upstream try, child of the request span (DESIGN "Tracing
 * model", Decisions 3–5): `{operation} {target model}`, provider, server, resend count, usage,
 * cost and time to first chunk; ERROR on failure. Also records the per-attempt GenAI metrics.
 * Never throws from its methods.
 */
import { performance } from 'node:perf_hooks';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type HrTime } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from '@opentelemetry/semantic-conventions';
import type { CallOutcome } from '../providers/provider.js';
import { errorTypeOf, statusMessageOf } from './error-type-of.js';
import {
  ATTR_GATEWAY_ATTEMPT_NUMBER,
  ATTR_GATEWAY_BREAKER_PROBE,
  ATTR_GATEWAY_COST_UNKNOWN_MODEL,
  ATTR_GATEWAY_COST_USD,
  ATTR_GATEWAY_RETRY_BUDGET_EXHAUSTED,
  ATTR_GATEWAY_TARGET_INDEX,
  ATTR_GCP_PROJECT_ID,
  ATTR_GATEWAY_UPSTREAM_QUEUE_DURATION,
  ATTR_GATEWAY_WARNINGS,
} from './gateway-attributes.js';
import { getOutputContentAttributes, getResponseAttributes, getUsageAttributes } from './gen-ai-attributes.js';
import { LateSpan } from './late-span.js';
import { computeCostUsd, findModelPrice } from './pricing.js';
import {
  ATTR_CLOUD_REGION,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_TOKEN_TYPE,
} from './semconv-incubating.js';
import { serverOf } from './server-of.js';
import type { SpanKit } from './span-kit.js';
import type { AttemptEnd, AttemptSpan, AttemptStart } from './telemetry.js';
import { w3cHeaders } from './w3c-headers.js';

/** Starts an attempt span under `parent`; `requestAttributes` are the logical call's `gen_ai.request.*`. */
export function startOtelAttemptSpan(kit: SpanKit, parent: LateSpan, start: AttemptStart, requestAttributes: Attributes): OtelAttemptSpan {
  const { address, port } = serverOf(start.baseUrl);
  // Made off the request path, with the decision taken now (late-span.ts); its id is chosen here,
  // so the `traceparent` sent upstream names it before it exists.
  const span = new LateSpan(kit, {
    name: `${start.operationName} ${start.model}`,
    kind: SpanKind.CLIENT,
    parent: trace.setSpanContext(ROOT_CONTEXT, parent.context),
    traceId: parent.context.traceId,
    spanId: kit.ids.generateSpanId(),
    links: [],
    startTime: hrTime(),
  });
  if (span.recording) {
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: start.operationName,
      [ATTR_GEN_AI_PROVIDER_NAME]: start.providerName,
      [ATTR_GEN_AI_REQUEST_MODEL]: start.model,
      [ATTR_GATEWAY_ATTEMPT_NUMBER]: start.attemptNumber,
      [ATTR_GATEWAY_TARGET_INDEX]: start.targetIndex,
    };
    if (address !== undefined) attributes[ATTR_SERVER_ADDRESS] = address;
    if (port !== undefined) attributes[ATTR_SERVER_PORT] = port;
    if (start.resendCount > 0) attributes[ATTR_HTTP_REQUEST_RESEND_COUNT] = start.resendCount;
    if (start.cloud !== undefined) {
      if (start.cloud.projectId !== undefined) attributes[ATTR_GCP_PROJECT_ID] = start.cloud.projectId;
      if (start.cloud.region !== undefined) attributes[ATTR_CLOUD_REGION] = start.cloud.region;
    }
    if (start.probe === true) attributes[ATTR_GATEWAY_BREAKER_PROBE] = true;
    // After start and off the request path, as the request span does (otel-request-span.ts).
    kit.offPath.defer(() => {
      span.sdk?.setAttributes(attributes);
      span.sdk?.setAttributes(requestAttributes);
    });
  }
  return new OtelAttemptSpan(kit, span, start, address, port);
}

export class OtelAttemptSpan implements AttemptSpan {
  onEnd: () => void = () => {};
  readonly #startedAt = performance.now();
  #firstChunkAt: number | undefined;
  #ended = false;

  constructor(
    private readonly kit: SpanKit,
    private readonly span: LateSpan,
    private readonly start: AttemptStart,
    private readonly address: string | undefined,
    private readonly port: number | undefined,
  ) {}

  traceHeaders(): Record<string, string> {
    if (!this.kit.propagateUpstream) return {};
    try {
      // Decision 5: traceparent and tracestate only; baggage may carry user data.
      return w3cHeaders(this.span.context);
    } catch {
      return {};
    }
  }

  firstChunk(): void {
    if (this.#firstChunkAt !== undefined || this.#ended) return;
    this.#firstChunkAt = performance.now();
    const seconds = (this.#firstChunkAt - this.#startedAt) / 1000;
    // Recorded after the chunk is relayed: the client is waiting for it.
    this.kit.offPath.defer(() => {
      this.span.sdk?.setAttribute(ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, seconds);
      this.kit.instruments.timeToFirstChunk.record(seconds, this.metricAttributes(undefined, undefined));
    });
  }

  requestWritten(queuedMs: number): void {
    if (this.#ended) return;
    const seconds = queuedMs / 1000;
    this.kit.offPath.defer(() => {
      this.span.sdk?.setAttribute(ATTR_GATEWAY_UPSTREAM_QUEUE_DURATION, seconds);
      this.kit.instruments.upstreamQueue.record(seconds, { [ATTR_GEN_AI_PROVIDER_NAME]: this.start.providerName });
    });
  }

  end(result: AttemptEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      this.onEnd();
      // The times now; the rest once the answer is written (off-path.ts).
      const endTime = hrTime();
      const seconds = (performance.now() - this.#startedAt) / 1000;
      this.kit.offPath.run(() => this.finish(result, endTime, seconds));
    } catch {
      // never throw from end
    }
  }

  private finish(result: AttemptEnd, endTime: HrTime, seconds: number): void {
    const span = this.span.sdk;
    const failed = result.error !== undefined;
    const errorType = failed ? errorTypeOf(result.error, result.status) : undefined;
    if (span !== undefined) {
      if (result.status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
      if (result.outcome !== undefined) {
        span.setAttributes(getResponseAttributes(result.outcome));
        if (result.outcome.usage !== undefined) span.setAttributes(getUsageAttributes(result.outcome.usage));
        const cost = this.costOf(result.outcome);
        if (cost !== undefined) span.setAttribute(ATTR_GATEWAY_COST_USD, cost);
        else if (result.outcome.usage !== undefined && findModelPrice(this.kit.pricing, this.start.model) === undefined) {
          span.setAttribute(ATTR_GATEWAY_COST_UNKNOWN_MODEL, true);
        }
        if (result.outcome.warnings.length > 0) span.setAttribute(ATTR_GATEWAY_WARNINGS, result.outcome.warnings);
      }
      if (errorType !== undefined) span.setAttribute(ATTR_ERROR_TYPE, errorType);
      if (result.retryBudgetExhausted === true) span.setAttribute(ATTR_GATEWAY_RETRY_BUDGET_EXHAUSTED, true);
      const capture = this.kit.capture;
      if (capture !== 'none' && result.output !== undefined) {
        const content = getOutputContentAttributes(result.output);
        if (capture === 'span' || capture === 'span_and_event') span.setAttributes(content);
        if (capture === 'event' || capture === 'span_and_event') span.addEvent('gen_ai.client.inference.operation.details', content);
      }
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: statusMessageOf(result.error, result.status) });
      span.end(endTime);
    }
    const attrs = this.metricAttributes(result.outcome?.responseModel, errorType);
    this.kit.instruments.operationDuration.record(seconds, attrs);
    if (result.retryBudgetExhausted === true) this.kit.instruments.retryBudgetRefusals.add(1, this.metricAttributes(undefined, undefined));
    const usage = result.outcome?.usage;
    if (usage !== undefined) {
      // Built like `attrs`, not as `{ ...attrs, [key]: … }`: a spread with a computed key takes V8's
      // slow path, and these two lines were ~6 % of the telemetry CPU per request in a profile.
      const responseModel = result.outcome?.responseModel;
      this.kit.instruments.tokenUsage.record(usage.inputTokens, this.metricAttributes(responseModel, errorType, 'input'));
      this.kit.instruments.tokenUsage.record(usage.outputTokens, this.metricAttributes(responseModel, errorType, 'output'));
    }
  }

  private costOf(outcome: CallOutcome): number | undefined {
    if (outcome.usage === undefined) return undefined;
    return computeCostUsd(this.kit.pricing, this.start.model, outcome.usage);
  }

  /** `tokenType` only for `gen_ai.client.token.usage`. */
  private metricAttributes(responseModel: string | undefined, errorType: string | undefined, tokenType?: 'input' | 'output'): Attributes {
    const attrs: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: this.start.operationName,
      [ATTR_GEN_AI_PROVIDER_NAME]: this.start.providerName,
      [ATTR_GEN_AI_REQUEST_MODEL]: this.start.model,
    };
    if (responseModel !== undefined) attrs[ATTR_GEN_AI_RESPONSE_MODEL] = responseModel;
    if (this.address !== undefined) attrs[ATTR_SERVER_ADDRESS] = this.address;
    if (this.port !== undefined) attrs[ATTR_SERVER_PORT] = this.port;
    if (errorType !== undefined) attrs[ATTR_ERROR_TYPE] = errorType;
    if (tokenType !== undefined) attrs[ATTR_GEN_AI_TOKEN_TYPE] = tokenType;
    return attrs;
  }
}
