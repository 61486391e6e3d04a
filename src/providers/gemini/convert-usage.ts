/**
 * Gemini `usageMetadata` → OpenAI `usage` and the provider-neutral usage telemetry records
 * (gemini-wire §3.3). Pure.
 *
 * `candidatesTokenCount` excludes thoughts while OpenAI's `completion_tokens` includes reasoning,
 * so completion = candidates + thoughts. Zero-valued fields are omitted on the wire: missing is 0.
 * `toolUsePromptTokenCount` is prompt-side work billed as input, so it is added to prompt_tokens,
 * which keeps prompt + completion = Gemini's total. Modality details (`promptTokensDetails`,
 * `cacheTokensDetails`, `candidatesTokensDetails`) give the audio and image shares pricing needs;
 * OpenAI's `audio_tokens` details appear only when non-zero.
 */
import type { CompletionUsage } from '../../openai/chat-response.js';
import type { NormalizedUsage } from '../provider.js';
import type { WireUsage } from './wire-schemas.js';

type ModalityCounts = WireUsage['candidatesTokensDetails'];

function modality(details: ModalityCounts, name: string): number {
  let n = 0;
  for (const d of details ?? []) if (d.modality === name) n += d.tokenCount ?? 0;
  return n;
}

export function convertUsage(meta: WireUsage): { usage: CompletionUsage; normalized: NormalizedUsage } {
  const prompt = meta.promptTokenCount ?? 0;
  const toolUse = meta.toolUsePromptTokenCount ?? 0;
  const candidates = meta.candidatesTokenCount ?? 0;
  const thoughts = meta.thoughtsTokenCount ?? 0;
  const cached = meta.cachedContentTokenCount ?? 0;
  const imageOut = modality(meta.candidatesTokensDetails, 'IMAGE');
  const audioOut = modality(meta.candidatesTokensDetails, 'AUDIO');
  const audioIn = modality(meta.promptTokensDetails, 'AUDIO');
  const cachedAudio = modality(meta.cacheTokensDetails, 'AUDIO');

  const promptTokens = prompt + toolUse;
  const completionTokens = candidates + thoughts;
  const usage: CompletionUsage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: audioIn > 0 ? { cached_tokens: cached, audio_tokens: audioIn } : { cached_tokens: cached },
    completion_tokens_details: audioOut > 0 ? { reasoning_tokens: thoughts, audio_tokens: audioOut } : { reasoning_tokens: thoughts },
  };
  const normalized: NormalizedUsage = {
    inputTokens: promptTokens,
    outputTokens: completionTokens,
    reasoningTokens: thoughts,
    cachedInputTokens: cached,
    ...(imageOut > 0 ? { imageOutputTokens: imageOut } : {}),
    ...(toolUse > 0 ? { toolUsePromptTokens: toolUse } : {}),
    ...(audioIn > 0 ? { audioInputTokens: audioIn } : {}),
    ...(cachedAudio > 0 ? { cachedAudioInputTokens: cachedAudio } : {}),
    ...(audioOut > 0 ? { audioOutputTokens: audioOut } : {}),
    ...(meta.serviceTier ? { serviceTier: meta.serviceTier.toLowerCase() } : {}),
  };
  return { usage, normalized };
}
