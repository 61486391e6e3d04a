/**
 * An OpenAI-format cache request (`POST /v1/cached_contents`: model, messages, tools, ttl) →
 * Gemini's `CachedContent` (gemini-more-fields §8). Pure; the messages and tools go through the
 * same converters as a chat call, so a cache holds exactly what the call would have sent.
 *
 * Gemini keeps `systemInstruction`, `contents`, `tools` and `toolConfig` in the cache (and then
 * refuses them beside `cachedContent` in a call); `ttl` is a Duration (`"300s"`); the model is
 * `models/<id>`. A cache may be only a system instruction.
 */
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import { getModelCapabilities } from './capabilities.js';
import { convertMessages, type GeminiContent } from './convert-messages.js';
import { prepareTools, type GeminiTool, type GeminiToolConfig } from './prepare-tools.js';

export interface CacheRequest {
  model: string;
  messages: ChatCompletionRequest['messages'];
  tools?: ChatCompletionRequest['tools'];
  tool_choice?: ChatCompletionRequest['tool_choice'];
  /** Seconds the cache lives (Gemini's default is one hour). */
  ttl?: number | undefined;
  display_name?: string | undefined;
}

export interface GeminiCachedContentBody {
  model: string;
  displayName?: string;
  contents?: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  ttl?: string;
}

export function convertCacheRequest(request: CacheRequest, baseUrl: string): GeminiCachedContentBody {
  const model = request.model.startsWith('models/') ? request.model.slice('models/'.length) : request.model;
  const systemOnly: Array<{ text: string }> = [];
  for (const m of request.messages) {
    if (m.role !== 'system' && m.role !== 'developer') break;
    if (typeof m.content === 'string') systemOnly.push({ text: m.content });
    else for (const p of m.content) systemOnly.push({ text: p.text });
  }
  const onlySystem = request.messages.every((m) => m.role === 'system' || m.role === 'developer');
  const system = onlySystem ? systemOnly : undefined;
  const perPartMediaResolution = getModelCapabilities(model).perPartMediaResolution;
  const converted = onlySystem ? undefined : convertMessages(request.messages, { baseUrl, perPartMediaResolution });
  const tools = prepareTools({ tools: request.tools, tool_choice: request.tool_choice });
  const systemInstruction = system ? { parts: system } : converted?.systemInstruction;
  return {
    model: `models/${model}`,
    ...(request.display_name !== undefined ? { displayName: request.display_name } : {}),
    ...(converted ? { contents: converted.contents } : {}),
    ...(systemInstruction ? { systemInstruction } : {}),
    ...(tools.tools ? { tools: tools.tools } : {}),
    ...(tools.toolConfig ? { toolConfig: tools.toolConfig } : {}),
    ...(request.ttl !== undefined ? { ttl: `${request.ttl}s` } : {}),
  };
}
