/**
 * The body of `POST /v1/prompts/{id}/completions` and `/render`, and the chat-completions request
 * it becomes.
 *
 * Pure. The body is `{variables?, version? | label?, …overrides}`: every other field is a
 * chat-completions field (`stream`, `temperature`, `model`, `tools`, …) that wins over the
 * template's `model` and `params`; `messages`, if given, are appended after the rendered ones
 * (a conversation continuing under a prompt). The merged request then goes through the same
 * strict parse as `POST /v1/chat/completions`, so an override is refused exactly as it would be
 * there, with the same `param`.
 */
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import { formatParam, parseChatRequest } from '../openai/parse-chat-request.js';
import type { PromptSelector } from './prompt-store.js';
import type { RenderedPrompt } from './render-prompt.js';

export interface PromptCall {
  variables: Record<string, unknown>;
  selector: PromptSelector;
  /** Chat-completions fields to merge over the template's. */
  overrides: Record<string, unknown>;
}

const PromptCallSchema = z.looseObject({
  variables: z.record(z.string(), z.unknown()).optional(),
  version: z.number().int().positive().optional(),
  label: z.string().min(1).max(64).optional(),
});

export function parsePromptCall(body: unknown): PromptCall {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('request body must be a JSON object', { code: 'invalid_request' });
  }
  const parsed = PromptCallSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = formatParam(issue.path);
    throw new InvalidRequestError(`Invalid value for '${param}': ${issue.message}`, { param, code: 'invalid_value' });
  }
  const { variables, version, label, ...overrides } = parsed.data;
  if (version !== undefined && label !== undefined) {
    throw new InvalidRequestError('Give either version or label, not both', { param: 'label', code: 'invalid_value' });
  }
  return { variables: variables ?? {}, selector: { version, label }, overrides };
}

/** Template model and params, then the caller's overrides; rendered messages, then the caller's. */
export function buildChatRequest(rendered: RenderedPrompt, overrides: Readonly<Record<string, unknown>>): ChatCompletionRequest {
  const { messages: extra, ...rest } = overrides;
  if (extra !== undefined && !Array.isArray(extra)) {
    throw new InvalidRequestError("Invalid value for 'messages': expected an array of messages to append", {
      param: 'messages',
      code: 'invalid_value',
    });
  }
  return parseChatRequest({
    ...(rendered.model !== undefined ? { model: rendered.model } : {}),
    ...rendered.params,
    ...rest,
    messages: [...rendered.messages, ...(extra ?? [])],
  });
}
