/**
 * The execution engine: walks a request's plan (a routing config tree, or one target from the
 * headers), making one upstream try per attempt span. Per leaf it retries with backoff; per
 * group it follows the strategy (single / fallback / loadbalance / conditional).
 *
 * Invariants:
 * - Every try is one attempt span, started just before the call and ended exactly once; the
 *   backoff sleep happens between spans, so a wait shows as a gap in the trace.
 * - `stats` is updated as attempts start, so the caller can report it even when routing throws.
 * - A client abort stops everything: no further attempt, the sleep is cancelled.
 * - A stream may be retried or fall back until its first chunk has been read (nothing has reached
 *   the client yet); once `routeChatStream` resolves, no further attempt is made.
 *
 * - Target health (DESIGN Decision 20, `route-health.ts`): a target whose breaker is open is
 *   skipped without an attempt (an event on the request span), a retry waits for the target's
 *   retry budget, and when no target is left the request fails fast (503) unless the config says
 *   `on_all_open: "try"`.
 * `routeAttempts` is the operation-neutral engine (targets, retries, fallbacks, attempt spans);
 * `routeChat` / `routeChatStream` call `provider.chat` / `chatStream` through it, and another
 * operation (embeddings) passes its own provider call.
 */
import type { ClientSignal } from '../client-signal.js';
import type { ConfigNode, ConfigTarget } from '../config/routing-config.js';
import { ClientAbortError, UpstreamError } from '../errors.js';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import type { ChatCompletionChunk } from '../openai/chat-response.js';
import type { ChatResult, Provider, ProviderCall, ProviderName, StreamResult, Target } from '../providers/provider.js';
import type { AttemptEnd, AttemptSpan, AttemptStart, RequestSpan } from '../telemetry/telemetry.js';
import type { ConditionContext } from '../config/conditions.js';
import { MAX_BACKOFF_MS, retryDelayMs, sleep as realSleep, type BackoffOptions, type Sleep } from './backoff.js';
import { applyOverrides } from './apply-overrides.js';
import { orderTargets } from './order-targets.js';
import type { RoutePlan } from './resolve-plan.js';
import type { ResolvedTarget } from './resolve-target.js';
import { CONNECTION_ERROR_REASON, shouldFallback, shouldRetry, TIMEOUT_REASON } from './retry-policy.js';
import { admitTarget, identityOf, TargetSkipped, type WalkState } from './route-health.js';
import type { TargetHealthRegistry } from './target-health-registry.js';

export type ProviderRegistry = Readonly<Partial<Record<ProviderName, Provider>>>;

/** What the engine needs for any operation. */
export interface AttemptContext {
  plan: RoutePlan;
  /** The request span; attempts are started under it, skipped targets recorded on it. */
  span: Pick<RequestSpan, 'startAttempt' | 'targetSkipped'>;
  /** Metadata of the request context (conditional routing reads `metadata.*`). */
  metadata: Readonly<Record<string, string>>;
  /** The client's request body as conditional routing sees it (`params.*`). */
  params: Readonly<Record<string, unknown>>;
  /** The model the client asked for; an attempt's model is its target's override, else this. */
  model: string;
  /**
   * `gen_ai.operation.name` of the attempt spans when it is not the provider's own chat operation
   * (embeddings: `embeddings`); default `provider.operationName`.
   */
  operationName?: string;
  providers: ProviderRegistry;
  /** Aborted when the client disconnects. */
  signal: ClientSignal;
  /** Injected for tests: loadbalance picks and backoff jitter. Default `Math.random`. */
  random?: () => number;
  /** Injected for tests: the wait between retries. Default a real, abortable timer. */
  sleep?: Sleep;
  /** Backoff window (base 500 ms, doubling, at most 8 s). */
  backoff?: Omit<BackoffOptions, 'random'>;
  /** The process's target health (breakers and retry budgets); undefined: no breaking, no budget. */
  health?: TargetHealthRegistry;
}

/** The engine's context for a chat operation. */
export interface RouteContext extends Omit<AttemptContext, 'params' | 'model'> {
  request: ChatCompletionRequest;
}

/** Filled in as attempts run, so the caller can report them even when routing throws. */
export interface RouteStats {
  attempts: number;
  /** Path of the target of the last attempt, e.g. `config.targets[1]`; `default` without config. */
  finalTarget?: string;
  /** Targets skipped while cooling down (`x-gateway-skipped-targets`). */
  skippedTargets?: number;
}

/** No routing config: one target from the headers, tried once. */
const DEFAULT_LEAF = 'default';

/** One try of one target: what a provider call needs besides the provider. */
export interface AttemptCall {
  /** With the config's `override_params`; a chat operation merges them into its request (`chatCall`). */
  target: ResolvedTarget;
  /** Aborted when the client disconnects. */
  signal: ClientSignal;
  /** W3C headers of the attempt span to send upstream; may be empty. */
  traceHeaders: Record<string, string>;
  /** Called once the request is on the wire, with the time it waited for a pooled connection. */
  onRequestWritten?: (queuedMs: number) => void;
}

/**
 * One try against one provider. It ends `attempt` itself when it succeeds (it knows the outcome);
 * when it throws, it must not end `attempt` (the engine does, with the error).
 */
export type TryOnce<T> = (provider: Provider, call: AttemptCall, attempt: AttemptSpan) => Promise<T>;

function chatContext(ctx: RouteContext): AttemptContext {
  return Object.assign({}, ctx, { params: ctx.request as unknown as Record<string, unknown>, model: ctx.request.model });
}

/**
 * The provider call of a chat attempt: the request with the target's `override_params` merged
 * once per resolved target (retries of the same target reuse it), and a target without them.
 */
function chatCalls(request: ChatCompletionRequest) {
  // Pairs in an array, not a WeakMap: a request resolves a handful of targets at most, and each
  // WeakMap entry is an ephemeron the garbage collector visits on every scavenge it lives through.
  const finals: Array<[ResolvedTarget, { request: ChatCompletionRequest; target: Target }]> = [];
  return (call: AttemptCall): ProviderCall => {
    let final = finals.find((pair) => pair[0] === call.target)?.[1];
    if (final === undefined) {
      const { overrideParams, ...target } = call.target;
      finals.push([call.target, (final = { request: applyOverrides(request, overrideParams), target })]);
    }
    return Object.assign({}, call, final);
  };
}

export function routeChat(ctx: RouteContext, stats: RouteStats): Promise<ChatResult> {
  const callOf = chatCalls(ctx.request);
  return routeAttempts(chatContext(ctx), stats, (provider, call, attempt) =>
    provider.chat(callOf(call)).then((result) => {
      attempt.end({
        status: result.status,
        outcome: result.outcome,
        output: result.completion.choices.map((c) => ({
          content: typeof c.message?.content === 'string' ? c.message.content : null,
          ...(c.finish_reason ? { finishReason: c.finish_reason } : {}),
        })),
      });
      return result;
    }),
  );
}

export function routeChatStream(ctx: RouteContext, stats: RouteStats): Promise<StreamResult> {
  const callOf = chatCalls(ctx.request);
  return routeAttempts(chatContext(ctx), stats, async (provider, call, attempt) => {
    const result = await provider.chatStream(callOf(call));
    const iterator = result.chunks[Symbol.asyncIterator]();
    // Read the first chunk before answering: until it is relayed nothing has reached the
    // client, so a failure here (a dropped connection, an error event) may still retry or fall back.
    const first = await iterator.next();
    if (!first.done) attempt.firstChunk();
    return Object.assign({}, result, { chunks: relay(first, iterator, result, attempt, call.signal) });
  });
}

/** Walks the plan, calling `once` per attempt, until one succeeds or routing gives up (then throws). */
export function routeAttempts<T>(ctx: AttemptContext, stats: RouteStats, once: TryOnce<T>): Promise<T> {
  const random = ctx.random ?? Math.random;
  const sleep = ctx.sleep ?? realSleep;
  const context: ConditionContext = { metadata: ctx.metadata, params: ctx.params };
  const walk: WalkState | undefined =
    ctx.health && { health: ctx.health, span: ctx.span, model: ctx.model, stats, soonestMs: Infinity };

  /** `hasNext`: an enclosing fallback group still has a target after this one. */
  const tryLeaf = async (leaf: ConfigTarget | undefined, hasNext: boolean): Promise<T> => {
    const target = ctx.plan.resolveTarget(leaf);
    const provider = ctx.providers[target.provider];
    if (!provider) {
      throw new UpstreamError(`provider ${target.provider} is not available in this gateway`, { status: 400, retryable: false });
    }
    const path = leaf?.path ?? DEFAULT_LEAF;
    const retry = leaf?.retry;
    const health = walk && admitTarget(walk, { leaf, target, provider, path, hasNext });
    let lastError: unknown;
    for (let resend = 0; ; resend++) {
      if (ctx.signal.aborted) {
        const abort = new ClientAbortError();
        health?.failed(abort); // frees a probe slot this try had claimed
        throw abort;
      }
      // A retry goes only where a first try would: not to a target that opened meanwhile.
      if (resend > 0 && health !== undefined && !health.admitRetry()) throw lastError;
      let retryNext = false;
      let coolingMs = 0;
      const onFailure = (err: unknown): Partial<AttemptEnd> => {
        health?.failed(err);
        if (retry === undefined || resend >= retry.attempts || !shouldRetry(retry, err)) return {};
        // The target opened (this failure, or others'): fall back at once if there is a fallback;
        // else wait for the cooldown when it is short (the retry may then be the probe).
        const cooling = health?.coolingDownMs();
        if (cooling !== undefined && (hasNext || cooling > (ctx.backoff?.maxMs ?? MAX_BACKOFF_MS))) return {};
        if (health !== undefined && !health.budgetAllowsRetry(retry)) return { retryBudgetExhausted: true };
        retryNext = true;
        coolingMs = cooling ?? 0;
        return {};
      };
      try {
        const result = await attemptOnce(ctx, stats, provider, target, path, resend, health?.probe === true, once, onFailure);
        health?.answered();
        return result;
      } catch (err) {
        if (!retryNext) throw err;
        lastError = err;
        const delay = retryDelayMs(
          { retryIndex: resend, retryAfterSeconds: (err as UpstreamError).retryAfterSeconds, useRetryAfterHeader: retry!.useRetryAfterHeader },
          Object.assign({}, ctx.backoff, { random }),
        );
        await sleep(Math.max(delay, coolingMs), ctx.signal);
      }
    }
  };

  const tryNode = async (node: ConfigNode, hasNext: boolean): Promise<T> => {
    if (node.kind === 'target') return tryLeaf(node, hasNext);
    // Only a load-balanced pick looks at health (and only while some target is not closed).
    const eligible = node.strategy.mode === 'loadbalance' && ctx.health?.anyOpen() ? coolingDownFilter(ctx) : undefined;
    const kids = orderTargets(node, context, random, eligible);
    const strategy = node.strategy;
    for (let i = 0; ; i++) {
      const last = i === kids.length - 1;
      try {
        return await tryNode(kids[i]!, hasNext || (strategy.mode === 'fallback' && !last));
      } catch (err) {
        if (strategy.mode !== 'fallback' || last || ctx.signal.aborted) throw err;
        // A skipped target always moves on; anything else as the strategy says.
        if (!(err instanceof TargetSkipped) && !shouldFallback(strategy, err)) throw err;
      }
    }
  };

  return ctx.plan.config === undefined ? tryLeaf(undefined, false) : tryNode(ctx.plan.config, false);
}

/** For a load-balanced group: a target leaf is eligible unless its breaker is cooling down. */
function coolingDownFilter(ctx: AttemptContext): (node: ConfigNode) => boolean {
  return (node) => {
    if (node.kind !== 'target') return true;
    let target: ResolvedTarget;
    try {
      target = ctx.plan.resolveTarget(node);
    } catch {
      return true; // its error is answered when it is picked
    }
    const provider = ctx.providers[target.provider];
    if (provider === undefined) return true;
    return !ctx.health!.entry(identityOf(target, provider, ctx.model)).health.coolingDown();
  };
}

async function attemptOnce<T>(
  ctx: AttemptContext,
  stats: RouteStats,
  provider: Provider,
  target: Target,
  path: string,
  resendCount: number,
  probe: boolean,
  once: TryOnce<T>,
  onFailure: (error: unknown) => Partial<AttemptEnd>,
): Promise<T> {
  stats.attempts += 1;
  stats.finalTarget = path;
  const start: AttemptStart = {
    providerName: provider.telemetryName,
    operationName: ctx.operationName ?? provider.operationName,
    model: target.model ?? ctx.model,
    baseUrl: target.baseUrl,
    attemptNumber: stats.attempts,
    targetIndex: path,
    resendCount,
  };
  if (target.vertex !== undefined) start.cloud = { projectId: target.vertex.projectId, region: target.vertex.region };
  if (probe) start.probe = true;
  const attempt = endOnce(ctx.span.startAttempt(start));
  try {
    const call: AttemptCall = {
      target,
      signal: ctx.signal,
      traceHeaders: attempt.traceHeaders(),
      onRequestWritten: (queuedMs) => attempt.requestWritten?.(queuedMs),
    };
    return await once(provider, call, attempt);
  } catch (err) {
    const error = ctx.signal.aborted ? new ClientAbortError() : err;
    // Decided before the span ends, so a retry the budget refused is recorded on this attempt.
    const extra = onFailure(error);
    attempt.end(Object.assign(statusField(error), extra, { error }));
    throw error;
  }
}

/** Relays the rest of a stream and ends the attempt span when it ends, however it ends. */
async function* relay(
  first: IteratorResult<ChatCompletionChunk>,
  iterator: AsyncIterator<ChatCompletionChunk>,
  result: StreamResult,
  attempt: AttemptSpan,
  signal: ClientSignal,
): AsyncGenerator<ChatCompletionChunk> {
  let ended = false;
  try {
    if (!first.done) {
      yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
    }
    ended = true;
    attempt.end({ status: result.status, outcome: result.outcome() });
  } catch (err) {
    ended = true;
    const error = signal.aborted ? new ClientAbortError() : err;
    attempt.end(Object.assign(statusField(error), { error, outcome: result.outcome() }));
    throw error;
  } finally {
    if (!ended) {
      // The consumer stopped early (client went away): stop reading upstream too.
      await iterator.return?.();
      attempt.end({ error: new ClientAbortError(), outcome: result.outcome() });
    }
  }
}

/** `http.response.status_code` only when upstream actually answered (not for a timeout or a dropped connection). */
function statusField(err: unknown): { status?: number } {
  if (!(err instanceof UpstreamError)) return {};
  if (err.reason === TIMEOUT_REASON || err.reason === CONNECTION_ERROR_REASON) return {};
  return { status: err.status };
}

/** Makes `end` idempotent, so no path can end an attempt span twice. */
function endOnce(attempt: AttemptSpan): AttemptSpan {
  let ended = false;
  return {
    traceHeaders: () => attempt.traceHeaders(),
    firstChunk: () => attempt.firstChunk(),
    requestWritten: (queuedMs) => attempt.requestWritten?.(queuedMs),
    end(result) {
      if (ended) return;
      ended = true;
      attempt.end(result);
    },
  };
}
