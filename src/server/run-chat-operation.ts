/**
 * The one shared path of a chat operation (DESIGN Decision 17), for every front door that turns
 * its request into a chat completion: `POST /v1/chat/completions`, the Responses API, prompt
 * completions.
 *
 * Contract:
 * - The front door has authenticated, read and validated its own body, translated it into a
 *   parsed `ChatCompletionRequest`, and read the request context (`readRequestContext`). It then
 *   calls `runChatOperation` once and returns; it writes nothing itself.
 * - This path resolves the plan (config, virtual keys, targets), starts the request span, routes
 *   the attempts (retries, fallbacks, one attempt span each), writes the answer through the
 *   front door's `ChatResponseAdapter` (JSON, or SSE events when `request.stream` is true) with
 *   the gateway's response headers, and ends the span, exactly once, however the call ends.
 * - Errors before anything was written are answered with the OpenAI error envelope and the
 *   right status; a failure after a stream started is the adapter's `streamError` events; a
 *   client that goes away aborts the upstream call and ends the span as 499 `cancelled`.
 * - Never throws, except for a target the plan cannot resolve (missing key, unknown virtual key):
 *   that is thrown before any span starts, and the app's error path answers it.
 * - The adapter is per request, so it may keep state (e.g. text accumulated across chunks).
 */
import type { ServerResponse } from 'node:http';
import { ClientAbortError, toErrorResponse } from '../errors.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import type { ChatCompletionChunk } from '../openai/chat-response.js';
import type { CallOutcome, ChatResult } from '../providers/provider.js';
import { routeChat, routeChatStream, type RouteContext } from '../routing/route-request.js';
import type { ExtraAttributes } from '../telemetry/telemetry.js';
import { openOperation, type Operation, type OperationDeps, type OperationStart } from './open-operation.js';
import type { RequestContext } from './request-context.js';
import { sendJson } from './respond.js';
import { SseWriter, type SseEvent } from './sse-writer.js';

/** How a front door writes a chat operation's answer in its own shape. */
export interface ChatResponseAdapter {
  /** `http.route` of the front door, e.g. `/v1/responses`. */
  route: string;
  /** Extra request-span attributes, e.g. `{ 'gateway.prompt.id': 'welcome' }`. */
  spanAttributes?: ExtraAttributes;
  /** Extra request-span attributes that are user content (e.g. a prompt's variables): recorded only with content capture on. */
  spanContentAttributes?: ExtraAttributes;
  /** Body of a non-streamed answer (status and headers are the path's). */
  json(result: ChatResult): unknown;
  /** Events written before the first chunk (e.g. `response.created`); default none. */
  streamStart?(): SseEvent[];
  /** Events for one streamed chunk, in order (may be none). */
  streamChunk(chunk: ChatCompletionChunk): SseEvent[];
  /** Events after upstream ended cleanly (chat completions: `data: [DONE]`). */
  streamEnd(outcome: CallOutcome): SseEvent[];
  /** Events for a failure after the stream started (chat completions: DESIGN Decision 8). */
  streamError(error: unknown): SseEvent[];
}

export interface ChatOperation {
  context: RequestContext;
  request: ChatCompletionRequest;
  adapter: ChatResponseAdapter;
}

export async function runChatOperation(deps: OperationDeps, res: ServerResponse, input: ChatOperation): Promise<void> {
  const { request, adapter } = input;
  const start: OperationStart = {
    context: input.context,
    operation: 'chat',
    model: request.model,
    route: adapter.route,
    params: request as unknown as Record<string, unknown>,
    chat: request,
  };
  // Set when present rather than spread in: no object copy per request for what is mostly absent.
  if (adapter.spanAttributes !== undefined) start.attributes = adapter.spanAttributes;
  if (adapter.spanContentAttributes !== undefined) start.contentAttributes = adapter.spanContentAttributes;
  const op = openOperation(deps, res, start);
  const ctx: RouteContext = { request, ...op.attempts };
  if (request.stream) {
    await stream(ctx, op, res, adapter);
    return;
  }
  try {
    const result = await routeChat(ctx, op.stats);
    if (op.signal.aborted) throw new ClientAbortError();
    sendJson(res, result.status, adapter.json(result), op.responseHeaders());
    op.succeed(result.status, result.outcome);
  } catch (err) {
    op.fail(err);
  }
}

async function stream(ctx: RouteContext, op: Operation, res: ServerResponse, adapter: ChatResponseAdapter): Promise<void> {
  let result;
  try {
    result = await routeChatStream(ctx, op.stats);
  } catch (err) {
    op.fail(err);
    return;
  }
  const writer = new SseWriter(res);
  writer.start(result.status, op.responseHeaders());
  let failure: unknown;
  try {
    if (adapter.streamStart !== undefined) await writer.send(adapter.streamStart());
    for await (const chunk of result.chunks) {
      const drained = writer.send(adapter.streamChunk(chunk));
      if (drained !== undefined) await drained;
      if (!writer.open) break; // leaving the loop calls return() on the iterator, which aborts upstream
    }
  } catch (err) {
    failure = err;
  }
  if (!writer.open || ctx.signal.aborted) {
    op.end(499, result.outcome(), new ClientAbortError());
  } else if (failure !== undefined) {
    op.logUnexpected(failure);
    writer.end(adapter.streamError(failure));
    op.end(result.status, result.outcome(), failure);
  } else {
    const outcome = result.outcome();
    writer.end(adapter.streamEnd(outcome));
    op.end(result.status, outcome);
  }
}

/**
 * The chat-completions wire shapes (DESIGN Decision 8 for a failure mid-stream): the answer of
 * `POST /v1/chat/completions` and of prompt completions, so it lives here, below both doors.
 */
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
