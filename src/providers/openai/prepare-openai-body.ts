/**
 * The body sent to an OpenAI-compatible upstream: the request passed through (routing already
 * merged the target's `override_params` into it, `messages` included) with the target's model and
 * sidegate's own non-OpenAI fields removed (an OpenAI endpoint
 * refuses unknown arguments). Pure; never mutates the request, so it is safe to rerun per attempt.
 */
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import type { Target } from '../provider.js';

export interface PreparedBody {
  body: Record<string, unknown>;
  /** Model actually requested upstream. */
  model: string;
  /** True when the client asked for usage in the stream (else we ask for it and drop it). */
  clientWantsStreamUsage: boolean;
  warnings: string[];
}

export function prepareOpenAIBody(request: ChatCompletionRequest, target: Target, stream: boolean): PreparedBody {
  const warnings: string[] = [];
  const merged: Record<string, unknown> = Object.assign({}, request);
  const model = target.model ?? request.model;
  merged.model = model;
  // Routing chose chat or chatStream from the client's request.
  if (stream) merged.stream = true;
  else delete merged.stream;

  // Gemini-only request extensions (docs/gemini-fields.md) an OpenAI endpoint would refuse.
  for (const key of ['thinking', 'cached_content', 'safety_settings'] as const) {
    if (merged[key] === undefined) continue;
    delete merged[key];
    warnings.push(`openai.${key}_ignored`);
  }
  merged.messages = request.messages.map(stripMessage);

  const clientWantsStreamUsage = request.stream_options?.include_usage === true;
  if (stream) {
    // Usage is what the attempt span records; ask for it and hide it from a client that did not.
    merged.stream_options = Object.assign({}, merged.stream_options as object | null | undefined, { include_usage: true });
  } else {
    delete merged.stream_options;
  }
  return { body: merged, model, clientWantsStreamUsage, warnings };
}

type Message = ChatCompletionRequest['messages'][number];

function stripMessage(message: Message): Message {
  if (message.role === 'assistant') {
    const { content_parts: _parts, content_blocks: _blocks, thought_signature: _sig, ...rest } = message;
    if (rest.tool_calls) {
      rest.tool_calls = rest.tool_calls.map(({ function: { thought_signature: _t, ...fn }, ...call }) => Object.assign({}, call, { function: fn }));
    }
    if (Array.isArray(rest.content)) {
      rest.content = rest.content.map((part) => {
        if (!('thought_signature' in part)) return part;
        const { thought_signature: _s, ...plain } = part;
        return plain;
      });
    }
    return rest;
  }
  if ((message.role === 'user' || message.role === 'tool') && Array.isArray(message.content)) {
    const content = message.content.map((part) => {
      if (part.type === 'file' && (part.file.video_metadata !== undefined || part.file.detail !== undefined)) {
        const { video_metadata: _v, detail: _d, ...file } = part.file;
        return Object.assign({}, part, { file });
      }
      if (part.type !== 'image_url' || (part.image_url.mime_type === undefined && part.image_url.video_metadata === undefined)) return part;
      const { mime_type: _m, video_metadata: _v, ...imageUrl } = part.image_url;
      return Object.assign({}, part, { image_url: imageUrl });
    });
    return Object.assign({}, message, { content }) as Message;
  }
  return message;
}
