/**
 * `POST /v1/chat/completions`: read and validate the body, read the request context, then the
 * shared chat operation (`run-chat-operation.ts`) with the chat-completions shapes: the
 * completion as it is, and each chunk as one `data:` event ending with `[DONE]`.
 * Knows nothing of Gemini: translation happens in providers, attempts in routing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Settings } from '../config/settings.js';
import { toErrorResponse } from '../errors.js';
import { parseChatRequest } from '../openai/parse-chat-request.js';
import type { OperationDeps } from './open-operation.js';
import { readJsonBodyWithBlobs } from './read-body.js';
import { readRequestContext, type RequestContextEnv } from './request-context.js';
import { runChatOperation, type ChatResponseAdapter } from './run-chat-operation.js';

export interface ChatRouteDeps extends OperationDeps {
  settings: Settings;
  contextEnv: RequestContextEnv;
}

/** The chat-completions wire shapes (DESIGN Decision 8 for a failure mid-stream). */
export const chatCompletionsAdapter: ChatResponseAdapter = {
  route: '/v1/chat/completions',
  json: (result) => result.completion,
  streamChunk: (chunk) => [{ data: chunk }],
  streamEnd: () => [{ data: '[DONE]' }],
  streamError(error) {
    const { message, type, code } = toErrorResponse(error).body.error;
    return [{ data: { error: { message, type, code } } }];
  },
};

export function createChatRoute(deps: ChatRouteDeps) {
  return async function chatCompletions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBodyWithBlobs(req, deps.settings.maxBodyBytes);
    try {
      const request = parseChatRequest(body.value);
      const context = await readRequestContext(req.headers, deps.contextEnv);
      await runChatOperation(deps, res, { context, request, adapter: chatCompletionsAdapter });
    } finally {
      body.release();
    }
  };
}
