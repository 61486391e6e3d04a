/**
 * OpenAI `messages` → Gemini `systemInstruction` + `contents` (issue 2 point 2, issue 3;
 * gemini-wire §2.1, §2.2, §5, §6, §9.5). Pure; never mutates its input; called once per attempt.
 *
 * - every system/developer message, anywhere, adds its text parts to `systemInstruction` in order;
 * - user/tool → `user`, assistant → `model`; consecutive turns of the same role are merged
 *   (older models refuse non-alternating turns);
 * - assistant tool calls → `functionCall` parts carrying their `thought_signature` unchanged;
 *   tool messages → `functionResponse` named after the call their `tool_call_id` answers;
 * - a user message right after computer-use calls that no tool message answered is the result of
 *   those calls (DESIGN Decision 10).
 */
import { InvalidRequestError } from '../../errors.js';
import type { ChatCompletionRequest, ChatMessage, UserContentPart } from '../../openai/chat-request.js';
import { convertFilePart, convertImageUrl, convertInputAudio, type GeminiMediaPart, type MediaContext } from './media.js';
import { applyMediaOptions, type GeminiVideoMetadata, type MediaResolutionLevel, type MediaResolutionState } from './media-options.js';

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { name: string; args: Record<string, unknown> };
  functionResponse?: {
    name: string;
    response: Record<string, unknown>;
    parts?: Array<{ inlineData: { mimeType: string; data: string } }>;
  };
  executableCode?: { language: string; code: string };
  codeExecutionResult?: { outcome: string; output: string };
  mediaResolution?: { level: MediaResolutionLevel };
  videoMetadata?: GeminiVideoMetadata;
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface ConvertMessagesContext extends MediaContext {
  /** True for tool-call names that are computer-use actions (predefined, not declared by the client). */
  isComputerUseAction?: (name: string) => boolean;
  /** The target model takes `mediaResolution` per part (Gemini 3); else it is request-wide. */
  perPartMediaResolution?: boolean;
}

export interface ConvertedMessages {
  systemInstruction?: { parts: Array<{ text: string }> };
  contents: GeminiContent[];
  warnings: string[];
  /** `generationConfig.mediaResolution` asked for through `detail`, on models without per-part resolution. */
  mediaResolution?: MediaResolutionLevel;
}

type Messages = ChatCompletionRequest['messages'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Tool output text → `functionResponse.response`: a JSON object as is, anything else wrapped. */
export function toolResponseObject(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // not JSON: sent as text below
    }
  }
  return { content: text };
}

function userParts(content: string | UserContentPart[], param: string, ctx: MediaContext, resolution: MediaResolutionState): GeminiPart[] {
  if (typeof content === 'string') return [{ text: content }];
  return content.map((part, j): GeminiPart => {
    const p = `${param}[${j}]`;
    switch (part.type) {
      case 'text':
        return { text: part.text };
      case 'image_url':
        return applyMediaOptions(convertImageUrl(part.image_url, p, ctx), part.image_url, `${p}.image_url`, resolution);
      case 'input_audio':
        return convertInputAudio(part.input_audio, p);
      case 'file':
        return applyMediaOptions(convertFilePart(part.file, p, ctx), part.file, `${p}.file`, resolution);
      default: {
        const never: never = part;
        throw new InvalidRequestError(`${p}: unsupported content part`, { param: p, code: String(never) });
      }
    }
  });
}

/** Text and media of a tool result, split the way `functionResponse` carries them. */
function toolResult(
  content: string | UserContentPart[],
  param: string,
  ctx: MediaContext,
): { text: string; media: Array<{ inlineData: { mimeType: string; data: string } }> } {
  if (typeof content === 'string') return { text: content, media: [] };
  const texts: string[] = [];
  const media: Array<{ inlineData: { mimeType: string; data: string } }> = [];
  // Function-response media (inlineData only) carries no resolution or clip on the Gemini API.
  for (const part of userParts(content, param, ctx, { perPart: false })) {
    if (part.text !== undefined) texts.push(part.text);
    else if (part.inlineData) media.push({ inlineData: part.inlineData });
    else {
      throw new InvalidRequestError(
        `${param}: function results can carry only inline media (data URIs), not file URLs`,
        { param, code: 'invalid_media' },
      );
    }
  }
  return { text: texts.join('\n'), media };
}

function functionResponsePart(
  name: string,
  result: { text: string; media: Array<{ inlineData: { mimeType: string; data: string } }> },
): GeminiPart {
  return {
    functionResponse: {
      name,
      response: result.text.trim() === '' ? {} : toolResponseObject(result.text),
      ...(result.media.length > 0 ? { parts: result.media } : {}),
    },
  };
}

function assistantParts(
  message: Extract<ChatMessage, { role: 'assistant' }>,
  param: string,
  ctx: MediaContext,
  callNames: Map<string, string>,
): GeminiPart[] {
  const parts: GeminiPart[] = [];
  for (const block of message.content_blocks ?? []) {
    parts.push({ text: block.thinking, thought: true, ...(block.signature ? { thoughtSignature: block.signature } : {}) });
  }
  const bodyStart = parts.length;
  if (message.content_parts && message.content_parts.length > 0) {
    // content_parts is the structured twin of content (Decision 9): prefer it, it keeps images,
    // code and per-part signatures that the flat string lost.
    message.content_parts.forEach((entry, j) => {
      const p = `${param}.content_parts[${j}]`;
      switch (entry.type) {
        case 'text':
          parts.push({ text: entry.text, ...(entry.thought_signature ? { thoughtSignature: entry.thought_signature } : {}) });
          break;
        case 'image': {
          const media = convertImageUrl(entry.image_url, p, ctx) as GeminiMediaPart;
          parts.push(entry.thought_signature ? Object.assign({}, media, { thoughtSignature: entry.thought_signature }) : media);
          break;
        }
        case 'executable_code':
          parts.push({ executableCode: { language: (entry.language ?? 'PYTHON').toUpperCase(), code: entry.code } });
          break;
        case 'code_execution_result':
          parts.push({ codeExecutionResult: { outcome: entry.outcome ?? 'OUTCOME_OK', output: entry.output ?? '' } });
          break;
        default: {
          const never: never = entry;
          throw new InvalidRequestError(`${p}: unsupported entry`, { param: p, code: String(never) });
        }
      }
    });
  } else if (typeof message.content === 'string') {
    if (message.content !== '') parts.push({ text: message.content });
  } else if (Array.isArray(message.content)) {
    // Text and images in order; an earlier generated image goes back as model inlineData with
    // its signature, exactly like the content_parts form above. Refusal parts are dropped (warning).
    message.content.forEach((part, j) => {
      const signature = 'thought_signature' in part && part.thought_signature ? { thoughtSignature: part.thought_signature } : {};
      switch (part.type) {
        case 'text':
          if (part.text !== '' || 'thoughtSignature' in signature) parts.push({ text: part.text, ...signature });
          break;
        case 'image_url':
          parts.push(Object.assign(convertImageUrl(part.image_url, `${param}.content[${j}]`, ctx), signature));
          break;
        case 'refusal':
          break;
        default: {
          const never: never = part;
          throw new InvalidRequestError(`${param}.content[${j}]: unsupported part`, { param: `${param}.content[${j}]`, code: String(never) });
        }
      }
    });
  }
  if (message.thought_signature) {
    // Gemini puts a text answer's signature on the last part of the turn (gemini-wire §6.1).
    const last = parts.length > bodyStart ? parts[parts.length - 1] : undefined;
    if (last && last.thoughtSignature === undefined) last.thoughtSignature = message.thought_signature;
    else parts.push({ text: '', thoughtSignature: message.thought_signature });
  }
  (message.tool_calls ?? []).forEach((call, j) => {
    const args = parseArguments(call.function.arguments, `${param}.tool_calls[${j}].function.arguments`);
    callNames.set(call.id, call.function.name);
    parts.push({
      functionCall: { name: call.function.name, args },
      ...(call.function.thought_signature ? { thoughtSignature: call.function.thought_signature } : {}),
    });
  });
  if (message.function_call) {
    // Legacy function calling: the call has no id; the `function` message answering it names it.
    const args = parseArguments(message.function_call.arguments, `${param}.function_call.arguments`);
    parts.push({ functionCall: { name: message.function_call.name, args } });
  }
  return parts;
}

function parseArguments(text: string, param: string): Record<string, unknown> {
  let args: unknown = {};
  if (text.trim() !== '') {
    try {
      args = JSON.parse(text);
    } catch {
      throw new InvalidRequestError(`${param}: not valid JSON`, { param, code: 'invalid_tool_arguments' });
    }
  }
  if (!isPlainObject(args)) {
    throw new InvalidRequestError(`${param}: must be a JSON object`, { param, code: 'invalid_tool_arguments' });
  }
  return args;
}

/** Warnings for fields OpenAI accepts in a message that Gemini has no use for. */
function messageWarnings(message: ChatMessage, warnings: Set<string>): void {
  if ('name' in message && message.name !== undefined && message.role !== 'function') warnings.add('ignored_param:messages.name');
  if (message.role === 'assistant') {
    if (message.refusal != null) warnings.add('ignored_param:messages.refusal');
    if (message.annotations != null && message.annotations.length > 0) warnings.add('ignored_param:messages.annotations');
    if (message.audio != null) warnings.add('ignored_param:messages.audio');
  }
  if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (part.type === 'refusal') warnings.add('ignored_param:messages.refusal');
      else if (part.prompt_cache_breakpoint !== undefined) warnings.add('ignored_param:messages.content.prompt_cache_breakpoint');
    }
  }
}

export function convertMessages(messages: Messages, ctx: ConvertMessagesContext = {}): ConvertedMessages {
  const system: Array<{ text: string }> = [];
  const contents: GeminiContent[] = [];
  const warnings = new Set<string>();
  const callNames = new Map<string, string>();
  // Computer-use calls of the latest assistant turn that no tool message has answered yet.
  let pendingComputerCalls: string[] = [];
  const resolution: MediaResolutionState = { perPart: ctx.perPartMediaResolution === true };

  const push = (role: GeminiContent['role'], parts: GeminiPart[]): void => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };

  messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    messageWarnings(message, warnings);
    switch (message.role) {
      case 'system':
      case 'developer':
        if (typeof message.content === 'string') system.push({ text: message.content });
        else for (const part of message.content) system.push({ text: part.text });
        break;
      case 'user': {
        if (pendingComputerCalls.length > 0) {
          const result = toolResult(message.content, `${param}.content`, ctx);
          // One functionResponse per call; the screenshot belongs to the state after the last action.
          push(
            'user',
            pendingComputerCalls.map((name, k) =>
              functionResponsePart(name, k === pendingComputerCalls.length - 1 ? result : { text: result.text, media: [] }),
            ),
          );
          pendingComputerCalls = [];
          break;
        }
        push('user', userParts(message.content, `${param}.content`, ctx, resolution));
        break;
      }
      case 'assistant': {
        push('model', assistantParts(message, param, ctx, callNames));
        const calls = message.tool_calls ?? [];
        pendingComputerCalls =
          calls.length > 0 && ctx.isComputerUseAction && calls.every((c) => ctx.isComputerUseAction!(c.function.name))
            ? calls.map((c) => c.function.name)
            : [];
        break;
      }
      case 'tool': {
        const name = callNames.get(message.tool_call_id);
        if (name === undefined) {
          const p = `${param}.tool_call_id`;
          throw new InvalidRequestError(`${p}: no earlier assistant tool call has id ${JSON.stringify(message.tool_call_id)}`, {
            param: p,
            code: 'unknown_tool_call_id',
          });
        }
        pendingComputerCalls = [];
        push('user', [functionResponsePart(name, toolResult(message.content, `${param}.content`, ctx))]);
        break;
      }
      case 'function':
        // Legacy function result (OpenAI's pre-tools form): answers the call named `name`.
        pendingComputerCalls = [];
        push('user', [functionResponsePart(message.name, { text: message.content ?? '', media: [] })]);
        break;
      default: {
        const never: never = message;
        throw new InvalidRequestError(`${param}: unsupported role`, { param, code: String(never) });
      }
    }
  });

  if (contents.length === 0) {
    throw new InvalidRequestError('messages: at least one user or assistant message is required', {
      param: 'messages',
      code: 'no_contents',
    });
  }
  return {
    contents,
    warnings: [...warnings],
    ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}),
    ...(resolution.requestWide ? { mediaResolution: resolution.requestWide.level } : {}),
  };
}
