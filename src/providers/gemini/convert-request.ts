/**
 * OpenAI chat-completions request + target → Gemini `generateContent` body (issue 2 point 2,
 * issue 3; gemini-wire §2, §7). Pure; never mutates its input; called once per attempt, so a
 * retry or fallback translates again from the original request.
 *
 * Unsupported input has two outcomes (STYLE §4): what the caller would notice becomes an
 * `InvalidRequestError` with `param`; what is safe to ignore becomes a warning with a stable code
 * (`ignored_param:<name>`), returned with the body and recorded on the attempt span.
 */
import { InvalidRequestError } from '../../errors.js';
import { ChatCompletionRequestSchema, type ChatCompletionRequest } from '../../openai/chat-request.js';
import type { Target } from '../provider.js';
import { getModelCapabilities } from './capabilities.js';
import { convertSpeech } from './convert-speech.js';
import { convertMessages, type GeminiContent } from './convert-messages.js';
import type { ResolvedMedia } from './media.js';
import { prepareTools, type GeminiTool, type GeminiToolConfig } from './prepare-tools.js';

export interface ConvertRequestContext {
  /** What the provider looked up before conversion (file MIME types, fetched URLs). */
  media?: ReadonlyMap<string, ResolvedMedia>;
}

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stopSequences?: string[];
  candidateCount?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: string;
  responseJsonSchema?: unknown;
  responseModalities?: Array<'TEXT' | 'IMAGE' | 'AUDIO'>;
  speechConfig?: { voiceConfig: { prebuiltVoiceConfig: { voiceName: string } } };
  responseLogprobs?: boolean;
  logprobs?: number;
  mediaResolution?: string;
  thinkingConfig?: { thinkingBudget?: number; includeThoughts?: boolean; thinkingLevel?: string };
}

export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: GeminiTool[];
  toolConfig?: GeminiToolConfig;
  generationConfig?: GeminiGenerationConfig;
  safetySettings?: Array<{ category: string; threshold: string }>;
  cachedContent?: string;
  serviceTier?: GeminiServiceTier;
}

/** Gemini's request tiers, lower-case since 2026-04 (gemini-more-fields §9). */
export type GeminiServiceTier = 'standard' | 'flex' | 'priority';

/** Fields that only feed OpenAI-side features or telemetry; safe to ignore (with a warning). */
const IGNORED = [
  'user',
  'metadata',
  'store',
  'parallel_tool_calls',
  'prompt_cache_key',
  'prompt_cache_retention',
  'safety_identifier',
  'verbosity',
] as const;

/** OpenAI parameters Gemini cannot honour and whose loss the caller would notice: a 400 each. */
const UNSUPPORTED = ['logit_bias', 'prediction', 'moderation', 'prompt_cache_options'] as const;

/** OpenAI `service_tier` → Gemini `serviceTier`; `auto` sends none (Gemini picks standard). */
const SERVICE_TIERS: Readonly<Record<string, GeminiServiceTier | null>> = { auto: null, default: 'standard', flex: 'flex', priority: 'priority' };

const INT32_MAX = 2 ** 31 - 1;

/** A 400 `unsupported_parameter` naming the model, for a field the model is known to refuse. */
function unsupportedOnModel(param: string, model: string, what: string): InvalidRequestError {
  return new InvalidRequestError(`${param}: ${model} does not support ${what}`, { param, code: 'unsupported_parameter' });
}

/** Computer-use predefined actions (gemini-wire §9.3): calls to them answer in Decision 10's form. */
const COMPUTER_USE_ACTIONS = new Set([
  'open_web_browser',
  'wait_5_seconds',
  'go_back',
  'go_forward',
  'search',
  'navigate',
  'click_at',
  'hover_at',
  'type_text_at',
  'key_combination',
  'scroll_document',
  'scroll_at',
  'drag_and_drop',
  'click',
  'double_click',
  'triple_click',
  'middle_click',
  'right_click',
  'mouse_down',
  'mouse_up',
  'move',
  'type',
  'scroll',
  'wait',
  'press_key',
  'key_down',
  'key_up',
  'hotkey',
  'take_screenshot',
]);

/** A predefined computer-use action the client did not declare as its own function. */
function isComputerUseAction(declared: ReadonlySet<string>): (name: string) => boolean {
  return (name) => !declared.has(name) && COMPUTER_USE_ACTIONS.has(name);
}

/** The model a target calls: routing's override (`override_params.model`), else the client's. */
export function targetModel(request: ChatCompletionRequest, target: Target): string {
  return target.model ?? request.model;
}

function generationConfig(request: ChatCompletionRequest, model: string, warnings: string[]): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens != null) config.maxOutputTokens = maxTokens;
  if (request.temperature != null) config.temperature = request.temperature;
  if (request.top_p != null) config.topP = request.top_p;
  if (request.stop != null) {
    const stops = typeof request.stop === 'string' ? [request.stop] : request.stop;
    if (stops.length > 0) config.stopSequences = stops;
  }
  if (request.n != null) {
    const max = getModelCapabilities(model).maxCandidates;
    if (request.n > max) throw unsupportedOnModel('n', model, `more than ${max} candidate${max === 1 ? '' : 's'} (candidateCount)`);
    config.candidateCount = request.n;
  }
  if (request.seed != null) {
    // generationConfig.seed is a proto int32; OpenAI's seed is any integer.
    if (request.seed > INT32_MAX || request.seed < -INT32_MAX - 1) {
      throw new InvalidRequestError('seed: Gemini takes a 32-bit signed integer seed', { param: 'seed' });
    }
    config.seed = request.seed;
  }
  if (request.logprobs === true) {
    if (!getModelCapabilities(model).logprobs) throw unsupportedOnModel('logprobs', model, 'logprobs');
    config.responseLogprobs = true;
    if (request.top_logprobs != null) config.logprobs = request.top_logprobs;
  } else if (request.top_logprobs != null) {
    throw new InvalidRequestError('top_logprobs: requires logprobs: true', { param: 'top_logprobs' });
  }
  if (request.presence_penalty != null) config.presencePenalty = request.presence_penalty;
  if (request.frequency_penalty != null) config.frequencyPenalty = request.frequency_penalty;

  const format = request.response_format;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  else if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.json_schema.schema !== undefined) config.responseJsonSchema = format.json_schema.schema;
  }

  const speech = convertSpeech(request, model);
  if (speech) {
    config.responseModalities = speech.responseModalities;
    config.speechConfig = speech.speechConfig;
  } else if (request.modalities != null) {
    config.responseModalities = request.modalities.map((m) => (m === 'image' ? 'IMAGE' : 'TEXT'));
  }

  if (request.thinking !== undefined) {
    // budget_tokens 0 is a real budget (no thinking), so test for undefined, not falsiness
    // (Portkey's `&&` turns 0 into "no budget").
    const enabled = request.thinking.type === 'enabled';
    const budget = request.thinking.budget_tokens;
    if (enabled && budget === undefined && request.reasoning_effort != null && getModelCapabilities(model).thinkingLevel) {
      // Thoughts asked for without a budget, plus an effort: the level, with thought summaries
      // (what the Responses API's `reasoning: {effort, summary}` means).
      config.thinkingConfig = { thinkingLevel: request.reasoning_effort.toUpperCase(), includeThoughts: true };
    } else {
      config.thinkingConfig = enabled ? (budget !== undefined ? { thinkingBudget: budget, includeThoughts: true } : { includeThoughts: true }) : { thinkingBudget: 0 };
      if (request.reasoning_effort != null) warnings.push('ignored_param:reasoning_effort');
    }
  } else if (request.reasoning_effort != null) {
    if (getModelCapabilities(model).thinkingLevel) {
      config.thinkingConfig = { thinkingLevel: request.reasoning_effort.toUpperCase() };
    } else {
      warnings.push('ignored_param:reasoning_effort');
    }
  }
  return config;
}

export function convertRequest(
  request: ChatCompletionRequest,
  target: Target,
  ctx: ConvertRequestContext = {},
): { body: GeminiRequestBody; warnings: string[] } {
  const model = targetModel(request, target);
  const warnings: string[] = [];

  for (const key of IGNORED) {
    if (request[key] != null) warnings.push(`ignored_param:${key}`);
  }
  if (request.stream_options?.include_obfuscation != null) warnings.push('ignored_param:stream_options.include_obfuscation');
  for (const key of UNSUPPORTED) {
    const value = request[key];
    if (value != null && !(key === 'logit_bias' && Object.keys(value).length === 0)) {
      throw new InvalidRequestError(`${key}: not supported by this gateway for Gemini models`, {
        param: key,
        code: 'unsupported_parameter',
      });
    }
  }
  const tools = prepareTools(request);
  warnings.push(...tools.warnings);
  const caps = getModelCapabilities(model);
  for (const tool of tools.tools ?? []) {
    if ('urlContext' in tool && !caps.urlContext) throw unsupportedOnModel('tools', model, 'the url_context tool');
    if ('googleSearch' in tool && !caps.googleSearch) {
      throw unsupportedOnModel(request.web_search_options != null ? 'web_search_options' : 'tools', model, 'Google Search grounding');
    }
  }
  const serviceTier = geminiServiceTier(request.service_tier, model);
  if (request.cached_content != null) {
    // Gemini refuses systemInstruction, tools and toolConfig next to a cache (gemini-more-fields §8):
    // they belong in the cache.
    const system = request.messages.some((m) => m.role === 'system' || m.role === 'developer');
    const owned = system ? 'system messages' : tools.tools || tools.toolConfig ? 'tools' : undefined;
    if (owned) {
      throw new InvalidRequestError(`cached_content: Gemini does not accept ${owned} next to a context cache; put them in the cache`, {
        param: 'cached_content',
      });
    }
  }
  const messages = convertMessages(request.messages, {
    baseUrl: target.baseUrl,
    perPartMediaResolution: caps.perPartMediaResolution,
    ...(ctx.media ? { media: ctx.media } : {}),
    ...(tools.computerUse
      ? { isComputerUseAction: isComputerUseAction(new Set(tools.functionNames)) }
      : {}),
  });
  for (const w of messages.warnings) if (!warnings.includes(w)) warnings.push(w);

  const config = generationConfig(request, model, warnings);
  if (messages.mediaResolution) config.mediaResolution = messages.mediaResolution;
  const body: GeminiRequestBody = {
    contents: messages.contents,
    ...(messages.systemInstruction ? { systemInstruction: messages.systemInstruction } : {}),
    ...(tools.tools ? { tools: tools.tools } : {}),
    ...(tools.toolConfig ? { toolConfig: tools.toolConfig } : {}),
    ...(Object.keys(config).length > 0 ? { generationConfig: config } : {}),
    ...(request.safety_settings != null && request.safety_settings.length > 0 ? { safetySettings: request.safety_settings.map((s) => ({ ...s })) } : {}),
    ...(request.cached_content != null ? { cachedContent: request.cached_content } : {}),
    ...(serviceTier ? { serviceTier } : {}),
  };
  return { body, warnings };
}

/** OpenAI `service_tier` → Gemini's, checked against the model; undefined when none is sent. */
function geminiServiceTier(tier: string | null | undefined, model: string): GeminiServiceTier | undefined {
  if (tier == null) return undefined;
  const mapped = SERVICE_TIERS[tier];
  if (mapped === undefined) {
    throw new InvalidRequestError(`service_tier: Gemini offers auto, default, flex and priority, not ${tier}`, {
      param: 'service_tier',
      code: 'unsupported_parameter',
    });
  }
  if (mapped === null) return undefined;
  if (!getModelCapabilities(model).serviceTiers) {
    if (mapped === 'standard') return undefined;
    throw unsupportedOnModel('service_tier', model, `the ${mapped} service tier`);
  }
  return mapped;
}
