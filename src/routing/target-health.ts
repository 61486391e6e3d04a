/**
 * The circuit breaker of one target (DESIGN Decision 20; issue 24): closed → open after
 * `failureThreshold` consecutive failures (or at once on a 429/503 carrying `Retry-After` /
 * `RetryInfo`), open → half-open when the cooldown has passed (one request goes through as the
 * probe), half-open → closed on the probe's success, or open again for the next, longer cooldown on
 * its failure. Per process, in memory, like Envoy's outlier detection and LiteLLM's deployment
 * cooldowns.
 *
 * Pure but for the injected clock and random source; one instance per target, shared by every
 * request to it. Routing reports each attempt's verdict exactly once (`record`); a probe that ends
 * without a verdict (the client went away) releases the probe slot, so the next request probes.
 */
import type { CircuitBreakerSettings } from '../config/routing-config.js';

export type BreakerPolicy = Required<CircuitBreakerSettings>;

/** The defaults of issue 24: 5 failures, 5 s doubling to 60 s, answer 503 at once when no target is left. */
export const DEFAULT_BREAKER_POLICY: Readonly<BreakerPolicy> = Object.freeze({
  failureThreshold: 5,
  cooldownMs: 5_000,
  maxCooldownMs: 60_000,
  onAllOpen: 'fail_fast',
});

/** A cooldown is spread over ±20 % of its nominal value, so a fleet of sidecars does not probe in step. */
export const COOLDOWN_JITTER = 0.2;

export type BreakerState = 'closed' | 'open' | 'half_open';

/** What a request may do with the target now. */
export type Admission =
  | { kind: 'pass' }
  /** The cooldown is over and no probe is out: this request is the probe. */
  | { kind: 'probe' }
  | { kind: 'skip'; reason: SkipReason; /** Until the cooldown ends (0 while a probe is out). */ retryInMs: number };

export type SkipReason = 'cooling_down' | 'probe_in_flight';

/**
 * How an attempt went, for the target's health: `failed` (connection error, timeout, 5xx, 429),
 * `answered` (a success, or an answer that is the request's problem: a 400 says the target is up),
 * `unknown` (the client went away, or the attempt never reached the target).
 */
export type Verdict =
  | { kind: 'answered' }
  | { kind: 'unknown' }
  | { kind: 'failed'; /** Set for a 429/503 that said when to come back: opens at once until then. */ retryAfterMs?: number };

export class TargetHealth {
  #failures = 0;
  /** Consecutive openings without a close: the exponent of the next cooldown. */
  #openings = 0;
  /** While open: the time the cooldown ends. */
  #openUntil = 0;
  #open = false;
  #probeOut = false;
  /** Counts openings; an attempt admitted under an earlier count predates the current opening. */
  #generation = 0;

  constructor(
    private readonly clock: () => number,
    private readonly random: () => number,
    /** Told when the breaker opens (true) or closes (false), e.g. to count open targets. */
    private readonly onOpenChange: (open: boolean) => void = () => {},
  ) {}

  state(): BreakerState {
    if (!this.#open) return 'closed';
    return this.#probeOut || this.clock() >= this.#openUntil ? 'half_open' : 'open';
  }

  /** True while a request would be skipped (the cooldown runs, or the probe is out). */
  coolingDown(): boolean {
    return this.#open && (this.#probeOut || this.clock() < this.#openUntil);
  }

  /** Pass to `record`: tells an attempt admitted before the current opening from one admitted during it. */
  generation(): number {
    return this.#generation;
  }

  /** Milliseconds until the cooldown ends (0 when closed or due). */
  retryInMs(): number {
    return this.#open ? Math.max(0, this.#openUntil - this.clock()) : 0;
  }

  /** Asks to send a request; a `probe` answer claims the one probe slot until `record` is called. */
  admit(): Admission {
    if (!this.#open) return { kind: 'pass' };
    const now = this.clock();
    if (now < this.#openUntil) return { kind: 'skip', reason: 'cooling_down', retryInMs: this.#openUntil - now };
    if (this.#probeOut) return { kind: 'skip', reason: 'probe_in_flight', retryInMs: 0 };
    this.#probeOut = true;
    return { kind: 'probe' };
  }

  /**
   * The verdict of one attempt; `probe` when it was admitted as the probe; `admittedIn` the
   * `generation()` when it was admitted.
   */
  record(verdict: Verdict, probe: boolean, policy: BreakerPolicy, admittedIn: number = this.#generation): void {
    if (probe) this.#probeOut = false;
    switch (verdict.kind) {
      case 'answered':
        // An attempt sent before the target opened says nothing about it now (the Retry-After
        // of a 429 holds though other calls in flight then succeed); the probe, or one tried
        // anyway while open, does.
        if (this.#open && !probe && admittedIn !== this.#generation) return;
        if (this.#open) this.onOpenChange(false);
        this.#open = false;
        this.#failures = 0;
        this.#openings = 0;
        return;
      case 'unknown':
        return;
      case 'failed':
        if (probe) return this.#openFor(verdict.retryAfterMs, policy);
        // An attempt admitted before the target opened (or tried anyway): the cooldown already runs.
        if (this.#open) return;
        this.#failures += 1;
        if (verdict.retryAfterMs !== undefined || this.#failures >= policy.failureThreshold) this.#openFor(verdict.retryAfterMs, policy);
        return;
      default: {
        const never: never = verdict;
        throw new Error(`unhandled verdict ${JSON.stringify(never)}`);
      }
    }
  }

  #openFor(retryAfterMs: number | undefined, policy: BreakerPolicy): void {
    const max = Math.max(1, policy.maxCooldownMs);
    const cooldown = retryAfterMs !== undefined ? Math.min(Math.max(0, retryAfterMs), max) : jitteredCooldownMs(this.#openings, policy, this.random);
    if (!this.#open) this.onOpenChange(true);
    this.#open = true;
    this.#failures = 0;
    this.#openings += 1;
    this.#generation += 1;
    this.#openUntil = this.clock() + cooldown;
  }
}

/**
 * The cooldown after the `openings`-th consecutive opening (0-based): `cooldownMs` doubling each
 * time up to `maxCooldownMs`, spread by ±`COOLDOWN_JITTER` and never above the maximum.
 */
export function jitteredCooldownMs(openings: number, policy: Pick<BreakerPolicy, 'cooldownMs' | 'maxCooldownMs'>, random: () => number): number {
  const max = Math.max(1, policy.maxCooldownMs);
  const nominal = Math.min(max, policy.cooldownMs * 2 ** Math.min(Math.max(0, openings), 30));
  const spread = 1 + COOLDOWN_JITTER * (2 * random() - 1);
  return Math.min(max, Math.round(nominal * spread));
}

/** A config's `circuit_breaker` over the defaults. */
export function breakerPolicyOf(settings: CircuitBreakerSettings | undefined): BreakerPolicy {
  return settings === undefined ? DEFAULT_BREAKER_POLICY : Object.assign({}, DEFAULT_BREAKER_POLICY, settings);
}
