/**
 * Gemini `GenerateContentResponse` → OpenAI `chat.completion` (issue 2 point 2, issue 3;
 * gemini-wire §3). Pure apart from the random ids it mints.
 *
 * One choice per candidate. A prompt blocked outright (`promptFeedback.blockReason`, no
 * candidates) becomes one `content_filter` choice, never an empty 200 `stop`. Non-OpenAI fields
 * (`thought_signature`, `content_parts`, `content_blocks`, `groundingMetadata`) appear only when
 * `strictCompliance` is false (Decision 9).
 */
import { randomUUID } from 'node:crypto';
import { UpstreamError } from '../../errors.js';
import { fastSafeParser } from '../../fast-safe-parse.js';
import type { ChatCompletion, ChatCompletionChoice, ChatCompletionMessage, MessageAudio } from '../../openai/chat-response.js';
import type { CallOutcome } from '../provider.js';
import { groundingAnnotations } from './convert-grounding.js';
import { convertLogprobs } from './convert-logprobs.js';
import { convertParts } from './convert-parts.js';
import { sampleRateOf, wavFromPcm, type AudioFormat } from './convert-speech.js';
import { convertUsage } from './convert-usage.js';
import { extractErrorObject, upstreamErrorFromObject } from './errors.js';
import { mapFinishReason } from './map-finish-reason.js';
import { WireResponse, type WireCandidate } from './wire-schemas.js';

export interface ConvertResponseOptions {
  /** The model the client asked for (`model` of the answer). */
  model: string;
  strictCompliance: boolean;
  /** Tool-call id prefix; default `call` (Decision 9). */
  idPrefix?: string;
  /** Warnings of the request translation, carried into the outcome. */
  warnings?: string[];
  /** Audio answers as `wav` (a RIFF header on Gemini's PCM); default `pcm16`, the PCM as is. */
  audioFormat?: AudioFormat;
  /** Injectable for tests. */
  newId?: () => string;
  now?: () => number;
}

/** How long OpenAI says an answer's audio can be referred to; this gateway keeps nothing, it only fills the field. */
export const AUDIO_EXPIRY_SECONDS = 3600;

/** `message.audio` of a candidate's audio parts (OpenAI shape; no transcript: TTS answers audio only). */
function messageAudio(audio: { mimeType: string; data: string[] }, options: ConvertResponseOptions): MessageAudio {
  const pcm = Buffer.concat(audio.data.map((d) => Buffer.from(d, 'base64')));
  const data = options.audioFormat === 'wav' ? wavFromPcm(pcm, sampleRateOf(audio.mimeType)) : pcm;
  return {
    id: `audio_${(options.newId ?? randomUUID)().replaceAll('-', '')}`,
    data: data.toString('base64'),
    expires_at: Math.floor((options.now ?? Date.now)() / 1000) + AUDIO_EXPIRY_SECONDS,
    transcript: '',
  };
}

const parseResponse = fastSafeParser(WireResponse);

/** Parses any JSON value as a Gemini response; an error body or a non-object throws `UpstreamError`. */
export function parseWireResponse(json: unknown): WireResponse {
  const error = extractErrorObject(json);
  if (error) throw upstreamErrorFromObject(error);
  const parsed = parseResponse(json);
  if (!parsed.success) {
    throw new UpstreamError('upstream sent a response the gateway cannot read', { status: 502, reason: 'invalid_response' });
  }
  return parsed.data;
}

export function convertCandidate(
  candidate: WireCandidate,
  index: number,
  options: ConvertResponseOptions,
): ChatCompletionChoice {
  const parts = convertParts(candidate.content?.parts ?? [], {
    strictCompliance: options.strictCompliance,
    idPrefix: options.idPrefix ?? 'call',
    ...(options.newId ? { newId: options.newId } : {}),
  });
  const strict = options.strictCompliance;
  const annotations = groundingAnnotations(candidate.groundingMetadata, parts.partTexts);
  const logprobs = convertLogprobs(candidate.logprobsResult);
  const message: ChatCompletionMessage = {
    role: 'assistant',
    content: parts.content ?? null,
    refusal: null,
    ...(parts.toolCalls.length > 0 ? { tool_calls: parts.toolCalls } : {}),
    ...(annotations.length > 0 ? { annotations } : {}),
    ...(parts.audio ? { audio: messageAudio(parts.audio, options) } : {}),
    ...(!strict && parts.structured ? { content_parts: parts.contentParts } : {}),
    ...(!strict && parts.contentBlocks.length > 0 ? { content_blocks: parts.contentBlocks } : {}),
    ...(!strict && parts.thoughtSignature ? { thought_signature: parts.thoughtSignature } : {}),
  };
  return {
    index,
    message,
    finish_reason: mapFinishReason(candidate.finishReason, parts.toolCalls.length > 0),
    logprobs: logprobs ?? null,
    ...(!strict && candidate.groundingMetadata != null ? { groundingMetadata: candidate.groundingMetadata } : {}),
    ...(!strict && candidate.urlContextMetadata != null ? { urlContextMetadata: candidate.urlContextMetadata } : {}),
    ...(!strict && candidate.safetyRatings != null ? { safetyRatings: candidate.safetyRatings } : {}),
  };
}

/** Gemini's served tier (`usageMetadata.serviceTier`) → OpenAI's `service_tier` (`standard` is OpenAI's `default`). */
export function openAiServiceTier(tier: string | null | undefined): string | undefined {
  if (!tier) return undefined;
  const lower = tier.toLowerCase().replace(/^service_tier_/, '');
  return lower === 'standard' ? 'default' : lower;
}

export function convertResponse(
  json: unknown,
  options: ConvertResponseOptions,
): { completion: ChatCompletion; outcome: CallOutcome } {
  const response = parseWireResponse(json);
  const candidates = response.candidates ?? [];
  let choices: ChatCompletionChoice[];
  if (candidates.length > 0) {
    choices = candidates
      .map((c, position) => ({ c, index: c.index ?? position }))
      .sort((a, b) => a.index - b.index)
      .map(({ c, index }) => convertCandidate(c, index, options));
  } else if (response.promptFeedback?.blockReason) {
    choices = [
      { index: 0, message: { role: 'assistant', content: null, refusal: null }, finish_reason: 'content_filter', logprobs: null },
    ];
  } else {
    throw new UpstreamError('upstream answered without candidates', { status: 502, reason: 'empty_response' });
  }
  const usage = response.usageMetadata ? convertUsage(response.usageMetadata) : undefined;
  const serviceTier = openAiServiceTier(response.usageMetadata?.serviceTier);
  const completion: ChatCompletion = {
    id: `chatcmpl-${response.responseId ?? (options.newId ?? randomUUID)()}`,
    object: 'chat.completion',
    created: Math.floor((options.now ?? Date.now)() / 1000),
    model: options.model,
    choices,
    ...(usage ? { usage: usage.usage } : {}),
    ...(serviceTier ? { service_tier: serviceTier } : {}),
    ...(!options.strictCompliance && response.promptFeedback != null ? { promptFeedback: response.promptFeedback } : {}),
  };
  const outcome: CallOutcome = {
    responseModel: response.modelVersion ?? options.model,
    finishReasons: choices.map((c) => c.finish_reason),
    warnings: options.warnings ?? [],
    ...(response.responseId ? { responseId: response.responseId } : {}),
    ...(usage ? { usage: usage.normalized } : {}),
  };
  return { completion, outcome };
}
