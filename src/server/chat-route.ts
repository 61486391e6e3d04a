/**
 * `POST /v1/chat/completions`: parse and validate, resolve targets, trace, route, write JSON or SSE.
 * Knows nothing of Gemini: translation happens in providers, attempts in routing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mirrorResponseHeaders, usesPortkeyPrefix } from '../config/header-aliases.js';
import type { Settings } from '../config/settings.js';
import { ClientAbortError } from '../errors.js';
import { parseChatRequest } from '../openai/parse-chat-request.js';
import type { CallOutcome } from '../providers/provider.js';
import { resolvePlan, type PlanEnvironment } from '../routing/resolve-plan.js';
import { routeChat, routeChatStream, type ProviderRegistry, type RouteStats } from '../routing/route-request.js';
import type { RequestSpan, Telemetry } from '../telemetry/telemetry.js';
import { readJsonBodyWithBlobs } from './read-body.js';
import { sendError, sendJson } from './respond.js';
import { SseWriter } from './sse-writer.js';

export interface ChatRouteDeps {
  settings: Settings;
  telemetry: Telemetry;
  providers: ProviderRegistry;
  /** Routing configs, virtual keys, base URLs and the custom-host allow-list. */
  planEnv: PlanEnvironment;
}

export function createChatRoute(deps: ChatRouteDeps) {
  return async function chatCompletions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJsonBodyWithBlobs(req, deps.settings.maxBodyBytes);
    try {
      await answer(req, res, parseChatRequest(body.value));
    } finally {
      body.release();
    }
  };

  async function answer(req: IncomingMessage, res: ServerResponse, request: ReturnType<typeof parseChatRequest>): Promise<void> {
    const plan = await resolvePlan(req.headers, deps.planEnv);
    const span = deps.telemetry.startRequest({ headers: req.headers, request });

    const abort = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) abort.abort(new ClientAbortError());
    };
    res.once('close', onClose);

    const stats: RouteStats = { attempts: 0 };
    const portkey = usesPortkeyPrefix(req.headers);
    const headers = () => responseHeaders(span, stats, portkey);
    const ctx = { request, plan, span, providers: deps.providers, signal: abort.signal };

    if (request.stream) {
      await streamAnswer(ctx, stats, res, span, headers);
    } else {
      try {
        const result = await routeChat(ctx, stats);
        if (abort.signal.aborted) throw new ClientAbortError();
        sendJson(res, result.status, result.completion, headers());
        endSpan(span, stats, result.status, result.outcome);
      } catch (err) {
        const status = abort.signal.aborted ? 499 : sendError(res, err, headers());
        endSpan(span, stats, status, undefined, abort.signal.aborted ? new ClientAbortError() : err);
      }
    }
    res.off('close', onClose);
  }
}

async function streamAnswer(
  ctx: Parameters<typeof routeChatStream>[0],
  stats: RouteStats,
  res: ServerResponse,
  span: RequestSpan,
  headers: () => Record<string, string>,
): Promise<void> {
  let result;
  try {
    result = await routeChatStream(ctx, stats);
  } catch (err) {
    const aborted = ctx.signal.aborted;
    const status = aborted ? 499 : sendError(res, err, headers());
    endSpan(span, stats, status, undefined, aborted ? new ClientAbortError() : err);
    return;
  }
  const writer = new SseWriter(res);
  writer.start(result.status, headers());
  let failure: unknown;
  try {
    for await (const chunk of result.chunks) {
      await writer.send(chunk);
      if (!writer.open) break; // leaving the loop calls return() on the iterator, which aborts upstream
    }
  } catch (err) {
    failure = err;
  }
  if (!writer.open || ctx.signal.aborted) {
    endSpan(span, stats, 499, result.outcome(), new ClientAbortError());
  } else if (failure !== undefined) {
    writer.fail(failure);
    endSpan(span, stats, result.status, result.outcome(), failure);
  } else {
    writer.done();
    endSpan(span, stats, result.status, result.outcome());
  }
}

function endSpan(span: RequestSpan, stats: RouteStats, status: number, outcome?: CallOutcome, error?: unknown): void {
  span.end({
    status,
    attempts: stats.attempts,
    ...(outcome ? { outcome } : {}),
    ...(error !== undefined ? { error } : {}),
    ...(stats.finalTarget !== undefined ? { finalTarget: stats.finalTarget } : {}),
  });
}

function responseHeaders(span: RequestSpan, stats: RouteStats, portkey: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    ...span.responseHeaders(),
    'x-gateway-retry-attempt-count': String(Math.max(0, stats.attempts - 1)),
  };
  if (stats.finalTarget !== undefined) headers['x-gateway-last-used-option-index'] = stats.finalTarget;
  return portkey ? mirrorResponseHeaders(headers) : headers;
}
