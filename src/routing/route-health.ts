/**
 * Target health as one request's walk sees it (DESIGN Decision 20): before a target's first try,
 * ask its breaker (`admitTarget`): pass, probe, or skip — a skip is an event on the request span
 * and a count in the answer's `x-gateway-skipped-targets`, never an attempt span; with no target
 * left after it, the request fails fast with 503 `all_targets_cooling_down` (or, with
 * `on_all_open: "try"`, tries it anyway). Then each attempt's verdict goes to the breaker, and each
 * retry asks the target's retry budget first.
 *
 * Called by `route-request.ts` once per target a request reaches; the returned handle belongs to
 * that one walk of that one target.
 */
import type { ConfigTarget, RetryPolicy } from '../config/routing-config.js';
import { AllTargetsCoolingDownError, ClientAbortError, UpstreamError } from '../errors.js';
import type { Provider } from '../providers/provider.js';
import type { RequestSpan } from '../telemetry/telemetry.js';
import type { ResolvedTarget } from './resolve-target.js';
import { breakerPolicyOf, type BreakerPolicy, type Verdict } from './target-health.js';
import type { TargetEntry, TargetHealthRegistry, TargetIdentity } from './target-health-registry.js';

/**
 * Thrown for a skipped target when a later fallback target remains; the fallback group moves on.
 * It is a fail-fast answer should it ever escape the walk.
 */
export class TargetSkipped extends AllTargetsCoolingDownError {}

/** What one request's walk shares across its targets. */
export interface WalkState {
  health: TargetHealthRegistry;
  span: Pick<RequestSpan, 'targetSkipped'>;
  /** The model the client asked for (a target's model is its override, else this). */
  model: string;
  /** Targets skipped so far (the route stats' `skippedTargets`). */
  stats: { skippedTargets?: number };
  /** The soonest a skipped target cools down (ms from now): the Retry-After of a fail-fast answer. */
  soonestMs: number;
}

export interface LeafInfo {
  leaf: ConfigTarget | undefined;
  target: ResolvedTarget;
  provider: Provider;
  /** Path of the target, e.g. `config.targets[0]`. */
  path: string;
  /** An enclosing fallback group still has a target after this one. */
  hasNext: boolean;
}

/** The health side of one target's tries within one request. */
export interface LeafHealth {
  /** The next try is the breaker's probe. */
  readonly probe: boolean;
  /** Before a retry: false when the target opened meanwhile (no retry then). May make the retry the probe. */
  admitRetry(): boolean;
  /** Milliseconds until the target's cooldown ends; undefined when it is not cooling down. */
  coolingDownMs(): number | undefined;
  /** Whether the retry budget has room for one more retry (counting it if so). */
  budgetAllowsRetry(retry: RetryPolicy): boolean;
  /** The try failed with `error`. */
  failed(error: unknown): void;
  /** The try succeeded. */
  answered(): void;
}

/**
 * Admits the first try of a target, or throws: `TargetSkipped` when a fallback remains,
 * `AllTargetsCoolingDownError` when none does (unless `on_all_open: "try"`).
 */
export function admitTarget(walk: WalkState, info: LeafInfo): LeafHealth {
  const registry = walk.health;
  const entry = registry.entry(identityOf(info.target, info.provider, walk.model));
  const policy = breakerPolicyOf(info.leaf?.circuitBreaker);
  let probe = false;
  if (registry.circuitBreaker) {
    const admission = entry.health.admit();
    if (admission.kind === 'probe') probe = true;
    else if (admission.kind === 'skip' && (info.hasNext || policy.onAllOpen === 'fail_fast')) {
      walk.stats.skippedTargets = (walk.stats.skippedTargets ?? 0) + 1;
      walk.soonestMs = Math.min(walk.soonestMs, admission.retryInMs);
      walk.span.targetSkipped?.({
        targetIndex: info.path,
        providerName: entry.providerName,
        model: entry.model,
        baseUrl: entry.baseUrl,
        credentialId: entry.credentialId,
        reason: admission.reason,
        retryInMs: admission.retryInMs,
      });
      throw info.hasNext ? new TargetSkipped(walk.soonestMs) : new AllTargetsCoolingDownError(walk.soonestMs);
    }
    // A skip with `on_all_open: "try"` and nothing after it: tried anyway, as a plain attempt.
  }
  entry.budget.recordRequest();
  return new TargetTries(entry, policy, registry.circuitBreaker, probe, registry.retryBudgetPercent);
}

/**
 * Who a target is for its health: provider, base URL, model and credential. A Vertex AI target's
 * project, region and service-account key count as part of its credential (two projects behind
 * one base URL are two targets).
 */
export function identityOf(target: ResolvedTarget, provider: Provider, requestedModel: string): TargetIdentity {
  const vertex = target.vertex;
  return {
    providerName: provider.telemetryName,
    baseUrl: target.baseUrl,
    model: target.model ?? requestedModel,
    apiKey: vertex === undefined ? target.apiKey : `${target.apiKey}\n${vertex.projectId ?? ''}\n${vertex.region}\n${vertex.serviceAccountJson ?? ''}`,
  };
}

class TargetTries implements LeafHealth {
  /** The breaker's generation when the current try was admitted. */
  #admittedIn: number;

  constructor(
    private readonly entry: TargetEntry,
    private readonly policy: BreakerPolicy,
    private readonly breaking: boolean,
    public probe: boolean,
    private readonly defaultBudgetPercent: number,
  ) {
    this.#admittedIn = entry.health.generation();
  }

  admitRetry(): boolean {
    if (!this.breaking) return true;
    this.#admittedIn = this.entry.health.generation();
    const admission = this.entry.health.admit();
    this.probe = admission.kind === 'probe';
    return admission.kind !== 'skip';
  }

  coolingDownMs(): number | undefined {
    if (!this.breaking || !this.entry.health.coolingDown()) return undefined;
    return this.entry.health.retryInMs();
  }

  budgetAllowsRetry(retry: RetryPolicy): boolean {
    return this.entry.budget.tryRetry(retry.budgetPercent ?? this.defaultBudgetPercent);
  }

  failed(error: unknown): void {
    this.#record(verdictOf(error));
  }

  answered(): void {
    this.#record({ kind: 'answered' });
  }

  #record(verdict: Verdict): void {
    if (this.breaking) this.entry.health.record(verdict, this.probe, this.policy, this.#admittedIn);
    this.probe = false;
  }
}

/**
 * A failure counts against the target when it says the target is down or overloaded: a dropped
 * or refused connection, a timeout, a 5xx or a 429 (a retryable `UpstreamError`). Any other
 * answer (a 400, an answer too large) shows the target up. A client abort says nothing.
 */
export function verdictOf(error: unknown): Verdict {
  if (error instanceof ClientAbortError || !(error instanceof UpstreamError)) return { kind: 'unknown' };
  if (!error.retryable) return { kind: 'answered' };
  // Google's RetryInfo and the Retry-After header both land in retryAfterSeconds (DESIGN Decision 7).
  if ((error.status === 429 || error.status === 503) && error.retryAfterSeconds !== undefined && Number.isFinite(error.retryAfterSeconds)) {
    return { kind: 'failed', retryAfterMs: Math.round(error.retryAfterSeconds * 1000) };
  }
  return { kind: 'failed' };
}
