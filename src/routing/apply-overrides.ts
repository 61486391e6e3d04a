/**
 * `override_params` of a routing-config target merged over the client's chat request, once per
 * resolved target (the one place overrides are applied): providers get the final request and
 * never see the overrides. The result is validated like a client's request, so an override can
 * never hand a provider something the public schema would refuse. Pure; never mutates `request`.
 */
import { InvalidRequestError } from '../errors.js';
import { issueParam } from '../issue-param.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import { safeParseChatRequest } from '../openai/parse-chat-request.js';

export function applyOverrides(request: ChatCompletionRequest, overrides: Readonly<Record<string, unknown>> | undefined): ChatCompletionRequest {
  if (overrides === undefined || Object.keys(overrides).length === 0) return request;
  // `stream` is how the client asked to be answered; routing already chose chat or chatStream.
  const merged = Object.assign({}, request, overrides, { stream: request.stream });
  if (merged.stream === undefined) delete merged.stream;
  const parsed = safeParseChatRequest(merged);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = issue === undefined ? 'override_params' : issueParam(issue) || 'override_params';
  throw new InvalidRequestError(`override_params: ${param}: ${issue?.message ?? 'invalid'}`, { param, code: 'invalid_override_params' });
}
