/**
 * Responses request + its resolved input items → the gateway's chat-completions request (issue 14
 * point 1). Pure; never mutates its input. After this, the request takes the one shared path
 * (DESIGN Decision 17): the Gemini translation of `messages`, tools and generation settings is the
 * chat path's, so both front doors send Gemini the same thing for the same conversation.
 *
 * Items → messages:
 * - `instructions` → a first system message; `system`/`developer` messages → system messages;
 * - user messages → user messages (`input_text` → text, `input_image`/`input_file` → `image_url`
 *   parts: data URI, URL or files id → the provider file URL of DESIGN Decision 11);
 * - consecutive assistant-side items (`reasoning`, assistant `message`, `function_call`,
 *   `code_interpreter_call`) → one assistant message: thinking blocks with their signatures,
 *   text, code and its output as `content_parts`, calls as `tool_calls` with their signatures;
 * - `function_call_output` → a tool message answering its `call_id`.
 *
 * Unsupported input has two outcomes (STYLE §4): what the caller would notice → `InvalidRequestError`
 * with a `param` in the Responses shape (`input[2].content[0]`, `tools[1].type`); what is safe to
 * ignore → an `ignored_param:<name>` warning.
 */
import { InvalidRequestError } from '../errors.js';
import { fileIdFromName } from '../openai/file-id.js';
import type { ChatCompletionRequest, ChatMessage, Tool, UserContentPart } from '../openai/chat-request.js';
import type { ResponsesRequest, InputItem, MessagePart, ResponsesTool } from './responses-request.js';

/** Google's files host: a files id becomes `{files_url}/v1beta/files/<id>` (DESIGN Decision 11). */
const GOOGLE_FILES_URL = 'https://generativelanguage.googleapis.com/v1beta/files/';

/** An input item after `item_reference`s and `previous_response_id` were resolved, with its param. */
export interface ResolvedItem {
  item: Exclude<InputItem, { type: 'item_reference' }>;
  /** Where it came from, for error messages: `input[3]`, or `previous_response_id` for history. */
  param: string;
}

export interface ChatRequestTranslation {
  request: ChatCompletionRequest;
  warnings: string[];
  /** The Responses param each chat message came from (index = message index), to rename errors. */
  messageParams: string[];
}

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;
type ContentPartsEntry = NonNullable<AssistantMessage['content_parts']>[number];

function unsupported(param: string, what: string): InvalidRequestError {
  return new InvalidRequestError(`${param}: ${what} is not supported by this gateway for Gemini`, {
    param,
    code: 'unsupported_parameter',
  });
}

function refuseUnsupportedFeatures(req: ResponsesRequest): void {
  if (req.background === true) throw unsupported('background', 'background: true (background responses)');
  if (req.conversation != null) throw unsupported('conversation', 'conversation (Conversations API state)');
  if (req.prompt != null) throw unsupported('prompt', 'prompt (stored OpenAI prompts)');
  if (req.max_tool_calls != null) throw unsupported('max_tool_calls', 'max_tool_calls');
  if (req.truncation === 'auto') throw unsupported('truncation', 'truncation: "auto"');
  if (req.top_logprobs != null && req.top_logprobs > 0) throw unsupported('top_logprobs', 'top_logprobs');
  const logprobs = req.include?.indexOf('message.output_text.logprobs') ?? -1;
  if (logprobs >= 0) throw unsupported(`include[${logprobs}]`, 'message.output_text.logprobs');
}

function ignoredWarnings(req: ResponsesRequest): string[] {
  const warnings: string[] = [];
  const ignored: Array<[string, unknown]> = [
    ['service_tier', req.service_tier],
    ['prompt_cache_key', req.prompt_cache_key],
    ['prompt_cache_retention', req.prompt_cache_retention],
    ['safety_identifier', req.safety_identifier],
    ['text.verbosity', req.text?.verbosity],
    ['stream_options', req.stream_options],
  ];
  for (const [name, value] of ignored) if (value != null) warnings.push(`ignored_param:${name}`);
  // Only the signature round trip is honoured among the `include` values.
  if (req.include?.some((v) => v !== 'reasoning.encrypted_content')) warnings.push('ignored_param:include');
  return warnings;
}

function convertTools(tools: readonly ResponsesTool[]): Tool[] {
  return tools.map((tool, i): Tool => {
    switch (tool.type) {
      case 'function':
        return {
          type: 'function',
          function: {
            name: tool.name,
            ...(tool.description != null ? { description: tool.description } : {}),
            ...(tool.parameters != null ? { parameters: tool.parameters } : {}),
            ...(tool.strict != null ? { strict: tool.strict } : {}),
          },
        };
      case 'web_search':
      case 'web_search_preview':
      case 'web_search_2025_08_26':
      case 'web_search_preview_2025_03_11':
        // The chat path's reserved name for Google Search grounding (gemini-wire §8.2).
        return { type: 'function', function: { name: 'grounding_search' } };
      case 'code_interpreter':
        return { type: 'code_execution' };
      default:
        throw new InvalidRequestError(`tools[${i}].type: the hosted tool ${tool.type} has no Gemini counterpart in this gateway`, {
          param: `tools[${i}].type`,
          code: 'unsupported_tool',
        });
    }
  });
}

function convertToolChoice(choice: NonNullable<ResponsesRequest['tool_choice']>): ChatCompletionRequest['tool_choice'] {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function' && typeof choice.name === 'string') {
    return { type: 'function', function: { name: choice.name } };
  }
  throw new InvalidRequestError(`tool_choice: forcing ${choice.type} is not supported by this gateway for Gemini`, {
    param: 'tool_choice',
    code: 'unsupported_parameter',
  });
}

/** A files id (`files/abc` or `abc`) → the provider file URL the chat path understands. */
function fileUrl(fileId: string): string {
  return GOOGLE_FILES_URL + fileIdFromName(fileId);
}

/** `input_image` / `input_file` → an `image_url` part (the chat path's carrier for any media). */
function mediaPart(part: Extract<MessagePart, { type: 'input_image' | 'input_file' }>, param: string): UserContentPart {
  const url =
    part.type === 'input_image'
      ? (part.image_url ?? (part.file_id != null ? fileUrl(part.file_id) : undefined))
      : (part.file_data ?? part.file_url ?? (part.file_id != null ? fileUrl(part.file_id) : undefined));
  if (url == null) {
    const fields = part.type === 'input_image' ? 'image_url or file_id' : 'file_data, file_url or file_id';
    throw new InvalidRequestError(`${param}: ${part.type} needs one of ${fields}`, { param, code: 'missing_required_parameter' });
  }
  if (part.type === 'input_file' && part.file_data != null && !part.file_data.startsWith('data:')) {
    throw new InvalidRequestError(`${param}.file_data: expected a data URI (data:<mime type>;base64,<data>)`, {
      param: `${param}.file_data`,
      code: 'invalid_media',
    });
  }
  return { type: 'image_url', image_url: { url } };
}

function userContent(content: string | MessagePart[], param: string): string | UserContentPart[] {
  if (typeof content === 'string') return content;
  if (content.length === 0) throw new InvalidRequestError(`${param}: must not be empty`, { param, code: 'invalid_value' });
  return content.map((part, j): UserContentPart => {
    const p = `${param}[${j}]`;
    switch (part.type) {
      case 'input_text':
        return { type: 'text', text: part.text };
      case 'input_image':
      case 'input_file':
        return mediaPart(part, p);
      case 'output_text':
      case 'refusal':
        throw new InvalidRequestError(`${p}.type: ${part.type} belongs in an assistant message`, {
          param: `${p}.type`,
          code: 'invalid_value',
        });
      default: {
        const never: never = part;
        throw new InvalidRequestError(`${p}: unsupported content part`, { param: p, code: String(never) });
      }
    }
  });
}

function systemText(content: string | MessagePart[], param: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      if (part.type !== 'input_text') {
        throw new InvalidRequestError(`${param}[${j}].type: system and developer messages take input_text only`, {
          param: `${param}[${j}].type`,
          code: 'invalid_value',
        });
      }
      return part.text;
    })
    .join('\n');
}

/** Collects the assistant-side items of one model turn into one chat assistant message. */
class AssistantTurn {
  readonly blocks: NonNullable<AssistantMessage['content_blocks']> = [];
  readonly entries: ContentPartsEntry[] = [];
  readonly calls: NonNullable<AssistantMessage['tool_calls']> = [];
  private code = false;

  empty(): boolean {
    return this.blocks.length === 0 && this.entries.length === 0 && this.calls.length === 0;
  }

  message(): AssistantMessage {
    const texts = this.entries.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text);
    const signatures = this.entries.filter((e) => 'thought_signature' in e && e.thought_signature !== undefined).length;
    const content = texts.join('');
    // content_parts keeps code and per-part signatures that a flat string would lose; `content`
    // stays for an OpenAI-compatible fallback target, which drops content_parts.
    const structured = this.code || signatures > 1 || texts.length > 1;
    const lastSignature = [...this.entries].reverse().find((e) => e.type === 'text' && e.thought_signature !== undefined) as
      | { thought_signature?: string }
      | undefined;
    return {
      role: 'assistant',
      content: this.calls.length > 0 && content === '' ? null : content,
      ...(structured && this.entries.length > 0 ? { content_parts: this.entries } : {}),
      ...(!structured && lastSignature?.thought_signature ? { thought_signature: lastSignature.thought_signature } : {}),
      ...(this.blocks.length > 0 ? { content_blocks: this.blocks } : {}),
      ...(this.calls.length > 0 ? { tool_calls: this.calls } : {}),
    };
  }

  add(item: ResolvedItem['item'], param: string): void {
    switch (item.type) {
      case 'reasoning': {
        const signature = item.encrypted_content ?? undefined;
        const texts = item.summary.map((s) => s.text);
        if (texts.length === 0 && signature !== undefined) texts.push('');
        texts.forEach((text, k) => {
          this.blocks.push({
            type: 'thinking',
            thinking: text,
            ...(signature !== undefined && k === texts.length - 1 ? { signature } : {}),
          });
        });
        break;
      }
      case 'message': {
        const parts = typeof item.content === 'string' ? [{ type: 'output_text' as const, text: item.content }] : item.content;
        const texts: string[] = [];
        parts.forEach((part, j) => {
          if (part.type === 'output_text') texts.push(part.text);
          else if (part.type !== 'refusal') {
            const p = `${param}.content[${j}].type`;
            throw new InvalidRequestError(`${p}: an assistant message takes output_text and refusal parts`, { param: p, code: 'invalid_value' });
          }
        });
        const text = texts.join('');
        if (text !== '' || item.thought_signature !== undefined) {
          this.entries.push({ type: 'text', text, ...(item.thought_signature !== undefined ? { thought_signature: item.thought_signature } : {}) });
        }
        break;
      }
      case 'function_call':
        this.calls.push({
          id: item.call_id,
          type: 'function',
          function: {
            name: item.name,
            arguments: item.arguments,
            ...(item.thought_signature !== undefined ? { thought_signature: item.thought_signature } : {}),
          },
        });
        break;
      case 'code_interpreter_call':
        this.code = true;
        this.entries.push({ type: 'executable_code', language: 'python', code: item.code ?? '' });
        if (item.outputs != null) {
          const logs = item.outputs.filter((o) => o.type === 'logs').map((o) => (o as { logs: string }).logs);
          this.entries.push({ type: 'code_execution_result', outcome: 'OUTCOME_OK', output: logs.join('') });
        }
        break;
      default:
        throw new InvalidRequestError(`${param}: not an assistant item`, { param, code: 'invalid_value' });
    }
  }
}

/** Items → chat messages, and the Responses param of each message. */
export function itemsToMessages(
  items: readonly ResolvedItem[],
  warnings: string[],
): { messages: ChatMessage[]; params: string[] } {
  const messages: ChatMessage[] = [];
  const params: string[] = [];
  let turn: AssistantTurn | undefined;
  let turnParam = '';
  const flush = (): void => {
    if (turn && !turn.empty()) {
      messages.push(turn.message());
      params.push(turnParam);
    }
    turn = undefined;
  };
  const assistant = (param: string): AssistantTurn => {
    if (!turn) {
      turn = new AssistantTurn();
      turnParam = param;
    }
    return turn;
  };

  for (const { item, param } of items) {
    switch (item.type) {
      case 'message':
        if (item.role === 'assistant') {
          assistant(param).add(item, param);
          break;
        }
        flush();
        if (item.role === 'user') {
          messages.push({ role: 'user', content: userContent(item.content, `${param}.content`) });
        } else {
          messages.push({ role: item.role, content: systemText(item.content, `${param}.content`) });
        }
        params.push(param);
        break;
      case 'reasoning':
      case 'function_call':
      case 'code_interpreter_call':
        assistant(param).add(item, param);
        break;
      case 'function_call_output': {
        flush();
        const content = userContent(item.output, `${param}.output`);
        messages.push({ role: 'tool', tool_call_id: item.call_id, content } as ChatMessage);
        params.push(param);
        break;
      }
      case 'web_search_call':
        // Gemini grounds again on every turn; the record of an earlier search carries nothing it reads.
        if (!warnings.includes('ignored_input:web_search_call')) warnings.push('ignored_input:web_search_call');
        break;
      default: {
        const never: never = item;
        throw new InvalidRequestError(`${param}: unsupported item`, { param, code: String(never) });
      }
    }
  }
  flush();
  return { messages, params };
}

export function toChatRequest(req: ResponsesRequest, items: readonly ResolvedItem[]): ChatRequestTranslation {
  refuseUnsupportedFeatures(req);
  const warnings = ignoredWarnings(req);
  const { messages, params } = itemsToMessages(items, warnings);
  if (req.instructions != null && req.instructions !== '') {
    messages.unshift({ role: 'system', content: req.instructions });
    params.unshift('instructions');
  }
  if (messages.every((m) => m.role === 'system' || m.role === 'developer')) {
    throw new InvalidRequestError('input: at least one user or assistant item is required', {
      param: 'input',
      code: 'missing_required_parameter',
    });
  }

  const request: ChatCompletionRequest = { model: req.model, messages };
  if (req.stream === true) {
    request.stream = true;
    // Usage arrives on a last chunk only when asked for; the Response object always carries it.
    request.stream_options = { include_usage: true };
  }
  if (req.temperature != null) request.temperature = req.temperature;
  if (req.top_p != null) request.top_p = req.top_p;
  if (req.max_output_tokens != null) request.max_completion_tokens = req.max_output_tokens;
  if (req.tools != null && req.tools.length > 0) request.tools = convertTools(req.tools);
  if (req.tool_choice != null) {
    const choice = convertToolChoice(req.tool_choice);
    if (choice !== undefined) request.tool_choice = choice;
  }
  if (req.parallel_tool_calls != null) request.parallel_tool_calls = req.parallel_tool_calls;
  if (req.user != null) request.user = req.user;

  const format = req.text?.format;
  if (format?.type === 'json_object') request.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    request.response_format = {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        schema: format.schema,
        ...(format.description != null ? { description: format.description } : {}),
        ...(format.strict != null ? { strict: format.strict } : {}),
      },
    };
  }

  const effort = req.reasoning?.effort;
  const summary = req.reasoning?.summary ?? req.reasoning?.generate_summary;
  if (effort === 'xhigh') throw unsupported('reasoning.effort', 'reasoning.effort "xhigh"');
  if (effort === 'none') {
    request.thinking = { type: 'disabled' };
    if (summary != null) warnings.push('ignored_param:reasoning.summary');
  } else {
    // A summary asks Gemini for its thought summaries (includeThoughts); the effort picks the
    // thinking level, exactly as `thinking` and `reasoning_effort` do on the chat route.
    if (summary != null) request.thinking = { type: 'enabled' };
    if (effort != null) request.reasoning_effort = effort;
  }
  return { request, warnings, messageParams: params };
}
