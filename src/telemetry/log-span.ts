/**
 * One log of `POST /v1/logs` → one span description (issue 8 item 1). Pure; runs once per log.
 *
 * Name: `metadata.spanName`, else `log {model}` when the request body is a chat completion, else
 * `log`. Times: the log's start and end. When the bodies are chat completions the span carries the
 * GenAI attributes, usage and `gateway.cost.usd` of an attempt span (the same usage and pricing
 * functions), so summaries count it as a billed call. Other metadata keys become
 * `gateway.metadata.<key>`; `response.status` ≥ 400 sets `error.type` and ERROR. Headers keep no
 * credential (drop-credentials.ts); bodies are exported only when content capture is on
 * (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`), in the same attributes or event as for
 * requests.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import { z } from 'zod';
import type { IdentifiedLog } from './telemetry.js';
import { ChatMessage, type ChatCompletionRequest } from '../openai/chat-request.js';
import type { CallOutcome, NormalizedUsage } from '../providers/provider.js';
import {
  ATTR_GATEWAY_COST_USD,
  ATTR_GATEWAY_SPAN_ID,
  ATTR_GATEWAY_TRACE_ID,
  METADATA_ATTRIBUTE_PREFIX,
} from './gateway-attributes.js';
import { dropCredentialHeaders, dropCredentialParams, redactKeys } from './drop-credentials.js';
import { millisToHrTime, type SpanRecord } from './emit-span.js';
import { getInputContentAttributes, getOutputContentAttributes, getRequestAttributes, getResponseAttributes, getUsageAttributes } from './gen-ai-attributes.js';
import { computeCostUsd, type PricingTable } from './pricing.js';
import type { ContentCapture } from './read-otel-config.js';
import { ATTR_GEN_AI_OPERATION_NAME, ATTR_GEN_AI_REQUEST_MODEL } from './semconv-incubating.js';

export const ATTR_GATEWAY_LOG_ID = 'gateway.log.id';
export const ATTR_GATEWAY_LOG_REQUEST_BODY = 'gateway.log.request.body';
export const ATTR_GATEWAY_LOG_RESPONSE_BODY = 'gateway.log.response.body';
const CONTENT_EVENT = 'gen_ai.client.inference.operation.details';

export interface LogSpanOptions {
  capture: ContentCapture;
  pricing: PricingTable;
}

// Logged bodies come from any client and any provider: read leniently, field by field, and take
// only values of the expected type (a wrong-typed field is left out, never a reason to fail).
const num = z.number().optional().catch(undefined);
const LoggedChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.unknown()),
  max_tokens: num,
  max_completion_tokens: num,
  temperature: num,
  top_p: num,
  presence_penalty: num,
  frequency_penalty: num,
  seed: num,
  n: num,
  stop: z.union([z.string(), z.array(z.string())]).optional().catch(undefined),
  stream: z.boolean().optional().catch(undefined),
  response_format: z.looseObject({ type: z.string() }).optional().catch(undefined),
  modalities: z.array(z.string()).optional().catch(undefined),
});
const count = z.int().min(0).optional().catch(undefined);
const LoggedChatResponse = z.looseObject({
  id: z.string().optional().catch(undefined),
  model: z.string().optional().catch(undefined),
  choices: z.array(
    z.looseObject({
      finish_reason: z.string().nullish().catch(undefined),
      message: z.looseObject({ content: z.string().nullish().catch(undefined) }).optional().catch(undefined),
    }),
  ),
  usage: z
    .looseObject({
      prompt_tokens: count,
      completion_tokens: count,
      prompt_tokens_details: z.looseObject({ cached_tokens: count }).nullish().catch(undefined),
      completion_tokens_details: z.looseObject({ reasoning_tokens: count }).nullish().catch(undefined),
    })
    .nullish()
    .catch(undefined),
});
const Messages = z.array(ChatMessage);

export function logToSpan(log: IdentifiedLog, options: LogSpanOptions): SpanRecord {
  const chatRequest = LoggedChatRequest.safeParse(log.request.body);
  const chatResponse = LoggedChatResponse.safeParse(log.response?.body);
  const request = chatRequest.success ? chatRequest.data : undefined;
  const response = chatResponse.success ? chatResponse.data : undefined;
  const model = request?.model ?? response?.model;

  const attributes: Attributes = { [ATTR_GATEWAY_LOG_ID]: log.id };
  if (log.trace !== undefined) attributes[ATTR_GATEWAY_TRACE_ID] = log.trace.client;
  if (log.span !== undefined) attributes[ATTR_GATEWAY_SPAN_ID] = log.span.client;
  if (log.request.method !== undefined) attributes[ATTR_HTTP_REQUEST_METHOD] = log.request.method.toUpperCase();
  if (log.request.url !== undefined) {
    const url = dropCredentialParams(log.request.url);
    if (url !== undefined) attributes[ATTR_URL_FULL] = url;
  }
  for (const [name, values] of Object.entries(dropCredentialHeaders(log.request.headers ?? {}))) {
    attributes[`http.request.header.${name}`] = values;
  }
  for (const [name, values] of Object.entries(dropCredentialHeaders(log.response?.headers ?? {}))) {
    attributes[`http.response.header.${name}`] = values;
  }
  const status = log.response?.status;
  if (status !== undefined) attributes[ATTR_HTTP_RESPONSE_STATUS_CODE] = status;
  for (const [key, value] of Object.entries(log.metadata)) attributes[`${METADATA_ATTRIBUTE_PREFIX}${key}`] = value;

  if (model !== undefined) {
    attributes[ATTR_GEN_AI_OPERATION_NAME] = 'chat';
    attributes[ATTR_GEN_AI_REQUEST_MODEL] = model;
  }
  if (request !== undefined) Object.assign(attributes, getRequestAttributes(request as unknown as ChatCompletionRequest));
  if (response !== undefined) {
    const outcome = toOutcome(response);
    Object.assign(attributes, getResponseAttributes(outcome));
    if (outcome.usage !== undefined && model !== undefined) {
      Object.assign(attributes, getUsageAttributes(outcome.usage));
      const cost = computeCostUsd(options.pricing, outcome.responseModel ?? model, outcome.usage);
      if (cost !== undefined) attributes[ATTR_GATEWAY_COST_USD] = cost;
    }
  }

  const record: SpanRecord = {
    name: log.spanName ?? (model !== undefined ? `log ${model}` : 'log'),
    kind: model !== undefined ? SpanKind.CLIENT : SpanKind.INTERNAL,
    startTime: millisToHrTime(log.startMs),
    endTime: millisToHrTime(log.endMs),
    attributes,
  };
  if (log.trace !== undefined) record.traceId = log.trace.id;
  if (log.span !== undefined) record.spanId = log.span.id;
  if (log.parentSpanId !== undefined) record.parentSpanId = log.parentSpanId;
  if (status !== undefined && status >= 400) {
    attributes[ATTR_ERROR_TYPE] = String(status);
    record.error = `HTTP ${status}`;
  }
  if (options.capture !== 'none') {
    // A logged body is the client's text: any key-like run in it is redacted before export.
    const content = Object.fromEntries(
      Object.entries(contentAttributes(log, request, response)).map(([key, value]) => [key, typeof value === 'string' ? redactKeys(value) : value]),
    );
    if (options.capture === 'span' || options.capture === 'span_and_event') Object.assign(attributes, content);
    if (options.capture === 'event' || options.capture === 'span_and_event') record.events = [{ name: CONTENT_EVENT, attributes: content }];
  }
  return record;
}

function toOutcome(response: z.infer<typeof LoggedChatResponse>): CallOutcome {
  const outcome: CallOutcome = {
    finishReasons: response.choices.flatMap((c) => (typeof c.finish_reason === 'string' ? [c.finish_reason] : [])),
    warnings: [],
  };
  if (response.id !== undefined) outcome.responseId = response.id;
  if (response.model !== undefined) outcome.responseModel = response.model;
  const usage = response.usage;
  if (usage?.prompt_tokens !== undefined && usage.completion_tokens !== undefined) {
    // OpenAI semantics, as NormalizedUsage: prompt includes cached, completion includes reasoning.
    const normalized: NormalizedUsage = {
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
      cachedInputTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    };
    outcome.usage = normalized;
  }
  return outcome;
}

/** Bodies as content attributes: the GenAI message schema for chat completions, JSON text otherwise. */
function contentAttributes(
  log: IdentifiedLog,
  request: z.infer<typeof LoggedChatRequest> | undefined,
  response: z.infer<typeof LoggedChatResponse> | undefined,
): Attributes {
  const out: Attributes = {};
  const messages = request === undefined ? undefined : Messages.safeParse(request.messages);
  if (messages?.success === true) Object.assign(out, getInputContentAttributes(messages.data));
  else if (log.request.body !== undefined) out[ATTR_GATEWAY_LOG_REQUEST_BODY] = asText(log.request.body);
  if (response !== undefined) {
    Object.assign(
      out,
      getOutputContentAttributes(
        response.choices.map((choice) => ({
          content: typeof choice.message?.content === 'string' ? choice.message.content : null,
          ...(typeof choice.finish_reason === 'string' ? { finishReason: choice.finish_reason } : {}),
        })),
      ),
    );
  } else if (log.response?.body !== undefined) {
    out[ATTR_GATEWAY_LOG_RESPONSE_BODY] = asText(log.response.body);
  }
  return out;
}

function asText(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body);
}
