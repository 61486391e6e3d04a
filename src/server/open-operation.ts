/**
 * The part of every operation (chat, embeddings, …) between the front door and the provider
 * call, whatever the provider method: resolve the plan from the request context, start the
 * request span, watch for the client going away, and build the response headers. `run-chat-
 * operation.ts` is its main user; an operation that is not a chat completion (embeddings) opens
 * one, passes `attempts` to `routeAttempts` with its own provider call, then calls `succeed`
 * or `fail`. Per request; every path ends the span exactly once.
 */
import type { ServerResponse } from 'node:http';
import { mirrorResponseHeaders } from '../config/header-aliases.js';
import { ClientAbort, type ClientSignal } from '../client-signal.js';
import { ClientAbortError } from '../errors.js';
import type { CallOutcome } from '../providers/provider.js';
import { resolvePlan } from '../routing/resolve-plan.js';
import type { TargetEnvironment } from '../routing/resolve-target.js';
import type { AttemptContext, ProviderRegistry, RouteStats } from '../routing/route-request.js';
import type { TargetHealthRegistry } from '../routing/target-health-registry.js';
import type { RequestEnd, RequestSpan, RequestStart, Telemetry } from '../telemetry/telemetry.js';
import type { RequestContext } from './request-context.js';
import { logUnexpected, sendError } from './respond.js';
import { responseTraceHeaders } from './response-trace-headers.js';

export interface OperationDeps {
  telemetry: Telemetry;
  providers: ProviderRegistry;
  /** Virtual keys, base URLs and the custom-host allow-list, for resolving targets. */
  targetEnv: TargetEnvironment;
  /** The process's breakers and retry budgets (DESIGN Decision 20); undefined: none. */
  targetHealth?: TargetHealthRegistry;
  /** Where the cause of an unexpected error (a 500, a bug) is written; default stderr. */
  log?: (line: string) => void;
}

/** What the request span needs (telemetry's `RequestStart`), plus what routing reads. */
export interface OperationStart extends RequestStart {
  context: RequestContext;
  /** The client's body as conditional routing sees it (`params.*`). */
  params: Readonly<Record<string, unknown>>;
}

export interface Operation {
  /** Hand to `routeAttempts` (or `routeChat` with the request). */
  readonly attempts: AttemptContext;
  readonly stats: RouteStats;
  readonly span: RequestSpan;
  /** Aborted when the client disconnects. */
  readonly signal: ClientSignal;
  /** Trace, retry-count and last-target headers of the answer (mirrored for Portkey clients). */
  responseHeaders(): Record<string, string>;
  /** The answer was written: ends the span with its status and outcome. */
  succeed(status: number, outcome?: CallOutcome): void;
  /** Writes the error envelope (nothing when the client is gone: 499) and ends the span with it. */
  fail(error: unknown): void;
  /** Ends the span for an answer that already started and then failed or was cut (streams). */
  end(status: number, outcome: CallOutcome | undefined, error?: unknown): void;
  /** Writes the cause of an error that is not one of ours (a bug: the client gets a 500) to the log. */
  logUnexpected(error: unknown): void;
}

/** Throws (before any span starts) for a target the plan cannot resolve: missing key, unknown virtual key. */
export function openOperation(deps: OperationDeps, res: ServerResponse, start: OperationStart): Operation {
  const { context } = start;
  const plan = resolvePlan(context, deps.targetEnv);
  const span = deps.telemetry.startRequest(start);

  const abort = new ClientAbort();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.once('close', onClose);

  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logUnexpectedError = (error: unknown) => logUnexpected(log, res.req, error);
  const stats: RouteStats = { attempts: 0 };
  const end = (status: number, outcome: CallOutcome | undefined, error?: unknown) => {
    res.off('close', onClose);
    const ending: RequestEnd = { status, attempts: stats.attempts };
    if (outcome !== undefined) ending.outcome = outcome;
    if (error !== undefined) ending.error = error;
    if (stats.finalTarget !== undefined) ending.finalTarget = stats.finalTarget;
    if (stats.skippedTargets !== undefined) ending.skippedTargets = stats.skippedTargets;
    span.end(ending);
  };
  const responseHeaders = () => {
    const headers = responseTraceHeaders(context.trace, span.sampled());
    headers['x-gateway-retry-attempt-count'] = String(Math.max(0, stats.attempts - 1));
    if (stats.finalTarget !== undefined) headers['x-gateway-last-used-option-index'] = stats.finalTarget;
    if (stats.skippedTargets !== undefined) headers['x-gateway-skipped-targets'] = String(stats.skippedTargets);
    return context.portkey ? mirrorResponseHeaders(headers) : headers;
  };

  return {
    attempts: {
      plan,
      span,
      metadata: context.metadata,
      params: start.params,
      model: start.model,
      providers: deps.providers,
      signal: abort,
      ...(deps.targetHealth !== undefined ? { health: deps.targetHealth } : {}),
    },
    stats,
    span,
    signal: abort,
    responseHeaders,
    succeed: (status, outcome) => end(status, outcome),
    fail(error) {
      if (abort.aborted) end(499, undefined, new ClientAbortError());
      else {
        logUnexpectedError(error);
        end(sendError(res, error, responseHeaders()), undefined, error);
      }
    },
    end,
    logUnexpected: logUnexpectedError,
  };
}
