/**
 * Pure mappers from the OpenAI request and the provider-neutral outcome to OTel GenAI semconv
 * attributes (v1.41 names, copied from the semantic-conventions incubating entry: semconv-incubating.ts).
 * Called only when a span is recording, so the work is skipped for unsampled requests.
 */
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_OUTPUT_TYPE,
  ATTR_GEN_AI_REQUEST_CHOICE_COUNT,
  ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY,
  ATTR_GEN_AI_REQUEST_MAX_TOKENS,
  ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY,
  ATTR_GEN_AI_REQUEST_SEED,
  ATTR_GEN_AI_REQUEST_STOP_SEQUENCES,
  ATTR_GEN_AI_REQUEST_STREAM,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_REQUEST_TOP_P,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM_INSTRUCTIONS,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
} from './semconv-incubating.js';
import type { ChatCompletionRequest, ChatMessage } from '../openai/chat-request.js';
import type { CallOutcome, NormalizedUsage } from '../providers/provider.js';

/** Request parameters of the logical call (`gen_ai.request.*`). */
export function getRequestAttributes(request: ChatCompletionRequest): Attributes {
  const out: Attributes = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) out[ATTR_GEN_AI_REQUEST_MAX_TOKENS] = maxTokens;
  if (request.temperature != null) out[ATTR_GEN_AI_REQUEST_TEMPERATURE] = request.temperature;
  if (request.top_p != null) out[ATTR_GEN_AI_REQUEST_TOP_P] = request.top_p;
  if (request.presence_penalty != null) out[ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY] = request.presence_penalty;
  if (request.frequency_penalty != null) out[ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY] = request.frequency_penalty;
  if (request.seed != null) out[ATTR_GEN_AI_REQUEST_SEED] = request.seed;
  if (request.n != null && request.n !== 1) out[ATTR_GEN_AI_REQUEST_CHOICE_COUNT] = request.n;
  if (request.stop != null) out[ATTR_GEN_AI_REQUEST_STOP_SEQUENCES] = typeof request.stop === 'string' ? [request.stop] : request.stop;
  if (request.stream === true) out[ATTR_GEN_AI_REQUEST_STREAM] = true;
  const format = request.response_format?.type;
  if (format === 'json_object' || format === 'json_schema') out[ATTR_GEN_AI_OUTPUT_TYPE] = 'json';
  else if (request.modalities?.includes('image')) out[ATTR_GEN_AI_OUTPUT_TYPE] = 'image';
  else out[ATTR_GEN_AI_OUTPUT_TYPE] = 'text';
  return out;
}

/** `gen_ai.response.*` of a finished call (no usage: that belongs on attempt spans only). */
export function getResponseAttributes(outcome: CallOutcome): Attributes {
  const out: Attributes = {};
  if (outcome.responseId !== undefined) out[ATTR_GEN_AI_RESPONSE_ID] = outcome.responseId;
  if (outcome.responseModel !== undefined) out[ATTR_GEN_AI_RESPONSE_MODEL] = outcome.responseModel;
  if (outcome.finishReasons.length > 0) out[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = outcome.finishReasons;
  return out;
}

/** `gen_ai.usage.*` of one billed call. */
export function getUsageAttributes(usage: NormalizedUsage): Attributes {
  const out: Attributes = {
    [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
    [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
  };
  if (usage.reasoningTokens > 0) out[ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoningTokens;
  if (usage.cachedInputTokens > 0) out[ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cachedInputTokens;
  return out;
}

type Part = Record<string, unknown>;

/**
 * Opt-in content (`gen_ai.system_instructions`, `gen_ai.input.messages`) as JSON strings in the
 * semconv message schema. Inline media is replaced by a placeholder: bytes never go in a span.
 */
export function getInputContentAttributes(messages: readonly ChatMessage[]): Attributes {
  const system: Part[] = [];
  const input: Array<{ role: string; parts: Part[] }> = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') {
      system.push(...contentParts(message.content));
      continue;
    }
    const parts = message.content == null ? [] : contentParts(message.content);
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        parts.push({ type: 'tool_call', id: call.id, name: call.function.name, arguments: call.function.arguments });
      }
      input.push({ role: 'assistant', parts });
    } else if (message.role === 'tool') {
      input.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: message.tool_call_id, response: textOf(message.content) }] });
    } else {
      input.push({ role: 'user', parts });
    }
  }
  const out: Attributes = { [ATTR_GEN_AI_INPUT_MESSAGES]: JSON.stringify(input) };
  if (system.length > 0) out[ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = JSON.stringify(system);
  return out;
}

/** Opt-in assistant output of each choice (`gen_ai.output.messages`) in the semconv message schema. */
export function getOutputContentAttributes(choices: ReadonlyArray<{ content: string | null; finishReason?: string }>): Attributes {
  return {
    [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify(
      choices.map((choice) => ({
        role: 'assistant',
        parts: choice.content === null ? [] : [{ type: 'text', content: choice.content }],
        ...(choice.finishReason !== undefined ? { finish_reason: choice.finishReason } : {}),
      })),
    ),
  };
}

function contentParts(content: string | ReadonlyArray<Record<string, unknown>>): Part[] {
  if (typeof content === 'string') return [{ type: 'text', content }];
  return content.map((part): Part => {
    if (part.type === 'text') return { type: 'text', content: part.text };
    if (part.type === 'image_url') {
      const url = (part.image_url as { url: string }).url;
      return url.startsWith('data:') ? { type: 'blob', modality: 'image', content: '[inline data omitted]' } : { type: 'uri', modality: 'image', uri: url };
    }
    return { type: String(part.type), content: '[inline data omitted]' };
  });
}

function textOf(content: string | ReadonlyArray<Record<string, unknown>>): string {
  if (typeof content === 'string') return content;
  return content.map((p) => (p.type === 'text' ? String(p.text) : '')).join('');
}
