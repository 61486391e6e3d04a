/**
 * Runs a request against its plan: one attempt per target try, each wrapped in an attempt span.
 * Foundation scope: the first target, one try. Retries, fallback and load balancing extend this
 * (issue 5) without changing its callers.
 */
import { ClientAbortError, UpstreamError } from '../errors.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import type { ChatResult, Provider, ProviderName, StreamResult } from '../providers/provider.js';
import type { AttemptSpan, RequestSpan } from '../telemetry/telemetry.js';
import type { RoutePlan } from './resolve-plan.js';

export type ProviderRegistry = Readonly<Record<ProviderName, Provider | undefined>>;

export interface RouteContext {
  request: ChatCompletionRequest;
  plan: RoutePlan;
  span: RequestSpan;
  providers: ProviderRegistry;
  /** Aborted when the client disconnects. */
  signal: AbortSignal;
}

/** Filled in as attempts run, so the caller can report them even when routing throws. */
export interface RouteStats {
  attempts: number;
  finalTarget?: string;
}

export async function routeChat(ctx: RouteContext, stats: RouteStats): Promise<ChatResult> {
  const planned = ctx.plan.targets[0]!;
  const { provider, attempt } = startAttempt(ctx, stats, 0);
  try {
    const result = await provider.chat({
      request: ctx.request,
      target: planned.target,
      signal: ctx.signal,
      traceHeaders: attempt.traceHeaders(),
    });
    attempt.end({ status: result.status, outcome: result.outcome });
    return result;
  } catch (err) {
    const error = ctx.signal.aborted ? new ClientAbortError() : err;
    attempt.end({ status: statusOf(error), error });
    throw error;
  }
}

export async function routeChatStream(ctx: RouteContext, stats: RouteStats): Promise<StreamResult> {
  const planned = ctx.plan.targets[0]!;
  const { provider, attempt } = startAttempt(ctx, stats, 0);
  let result: StreamResult;
  try {
    result = await provider.chatStream({
      request: ctx.request,
      target: planned.target,
      signal: ctx.signal,
      traceHeaders: attempt.traceHeaders(),
    });
  } catch (err) {
    const error = ctx.signal.aborted ? new ClientAbortError() : err;
    attempt.end({ status: statusOf(error), error });
    throw error;
  }
  return { ...result, chunks: traceChunks(result, attempt, ctx.signal) };
}

/** Ends the attempt span when the stream ends, however it ends (done, upstream error, client gone). */
async function* traceChunks(result: StreamResult, attempt: AttemptSpan, signal: AbortSignal) {
  let first = true;
  let ended = false;
  try {
    for await (const chunk of result.chunks) {
      if (first) {
        first = false;
        attempt.firstChunk();
      }
      yield chunk;
    }
    ended = true;
    attempt.end({ status: result.status, outcome: result.outcome() });
  } catch (err) {
    ended = true;
    const error = signal.aborted ? new ClientAbortError() : err;
    attempt.end({ status: statusOf(error), error, outcome: result.outcome() });
    throw error;
  } finally {
    // Reached without an end when the consumer stopped early (client went away).
    if (!ended) attempt.end({ error: new ClientAbortError(), outcome: result.outcome() });
  }
}

function startAttempt(ctx: RouteContext, stats: RouteStats, index: number) {
  const planned = ctx.plan.targets[index]!;
  const provider = ctx.providers[planned.target.provider];
  if (!provider) {
    throw new UpstreamError(`provider ${planned.target.provider} is not available in this gateway`, {
      status: 400,
      retryable: false,
    });
  }
  stats.attempts += 1;
  stats.finalTarget = planned.path;
  const attempt = ctx.span.startAttempt({
    providerName: provider.telemetryName,
    operationName: provider.operationName,
    model: planned.target.model ?? ctx.request.model,
    baseUrl: planned.target.baseUrl,
    attemptNumber: stats.attempts,
    targetIndex: planned.path,
    resendCount: 0,
  });
  return { provider, attempt };
}

function statusOf(err: unknown): number | undefined {
  return err instanceof UpstreamError ? err.status : undefined;
}
