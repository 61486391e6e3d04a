/**
 * Gemini `usageMetadata` → OpenAI `usage` and the provider-neutral usage telemetry records
 * (gemini-wire §3.3). Pure.
 *
 * `candidatesTokenCount` excludes thoughts while OpenAI's `completion_tokens` includes reasoning,
 * so completion = candidates + thoughts. Zero-valued fields are omitted on the wire: missing is 0.
 * `toolUsePromptTokenCount` is prompt-side work billed as input, so it is added to prompt_tokens,
 * which keeps prompt + completion = Gemini's total.
 */
import type { CompletionUsage } from '../../openai/chat-response.js';
import type { NormalizedUsage } from '../provider.js';
import type { WireUsage } from './wire-schemas.js';

export function convertUsage(meta: WireUsage): { usage: CompletionUsage; normalized: NormalizedUsage } {
  const prompt = meta.promptTokenCount ?? 0;
  const toolUse = meta.toolUsePromptTokenCount ?? 0;
  const candidates = meta.candidatesTokenCount ?? 0;
  const thoughts = meta.thoughtsTokenCount ?? 0;
  const cached = meta.cachedContentTokenCount ?? 0;
  const imageOut = (meta.candidatesTokensDetails ?? [])
    .filter((d) => d.modality === 'IMAGE')
    .reduce((sum, d) => sum + (d.tokenCount ?? 0), 0);

  const promptTokens = prompt + toolUse;
  const completionTokens = candidates + thoughts;
  const usage: CompletionUsage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cached },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
  const normalized: NormalizedUsage = {
    inputTokens: promptTokens,
    outputTokens: completionTokens,
    reasoningTokens: thoughts,
    cachedInputTokens: cached,
    ...(imageOut > 0 ? { imageOutputTokens: imageOut } : {}),
    ...(toolUse > 0 ? { toolUsePromptTokens: toolUse } : {}),
  };
  return { usage, normalized };
}
