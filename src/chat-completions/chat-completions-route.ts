/**
 * `POST /v1/chat/completions`: read and validate the body, read the request context, then the
 * shared chat operation (`run-chat-operation.ts`) with the chat-completions shapes: the
 * completion as it is, and each chunk as one `data:` event ending with `[DONE]`.
 * Knows nothing of Gemini: translation happens in providers, attempts in routing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Settings } from '../config/settings.js';
import { ClientAbortError } from '../errors.js';
import { parseChatRequest } from '../openai/parse-chat-request.js';
import type { OperationDeps } from '../server/open-operation.js';
import { readJsonBodyWithBlobs } from '../server/read-body.js';
import { readRequestContext, type RequestContextEnv } from '../server/request-context.js';
import { chatCompletionsAdapter, runChatOperation } from '../server/run-chat-operation.js';

export interface ChatRouteDeps extends OperationDeps {
  settings: Settings;
  contextEnv: RequestContextEnv;
}

export function createChatRoute(deps: ChatRouteDeps) {
  return async function chatCompletions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body;
    try {
      body = await readJsonBodyWithBlobs(req, deps.settings.maxBodyBytes);
    } catch (err) {
      if (err instanceof ClientAbortError) await recordBodyAbort(req);
      throw err;
    }
    try {
      const request = parseChatRequest(body.value);
      let context = readRequestContext(req.headers, deps.contextEnv);
      if (context instanceof Promise) context = await context; // only with x-gateway-config
      await runChatOperation(deps, res, { context, request, adapter: chatCompletionsAdapter });
    } finally {
      body.release();
    }
  };

  /**
   * A client that left while sending its body is a client abort like one that leaves mid-answer:
   * one request span, 499 `cancelled` (the model is unknown: the body never arrived).
   */
  async function recordBodyAbort(req: IncomingMessage): Promise<void> {
    try {
      const context = await readRequestContext(req.headers, deps.contextEnv);
      const span = deps.telemetry.startRequest({ context, operation: 'chat', model: '', route: chatCompletionsAdapter.route });
      span.end({ status: 499, attempts: 0, error: new ClientAbortError() });
    } catch {
      // headers the request context refuses: there is no request to record the abort under
    }
  }
}
