/**
 * Gemini `finishReason` → OpenAI `finish_reason` (gemini-wire §3.1; issue 2 point 2). Pure.
 *
 * Gemini has no TOOL_CALLS reason: a function-call answer ends with STOP, so the caller passes
 * whether the candidate carried `functionCall` parts. Unknown or missing reasons map to `stop`
 * rather than failing the call (STYLE §6).
 */
import type { FinishReason } from '../../openai/chat-response.js';

const CONTENT_FILTER = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
  'LANGUAGE',
]);

export function mapFinishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason != null && CONTENT_FILTER.has(reason)) return 'content_filter';
  if (hasToolCalls) return 'tool_calls';
  return 'stop';
}
