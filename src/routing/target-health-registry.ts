/**
 * The health of every target this process has called (DESIGN Decision 20): one breaker
 * (`target-health.ts`) and one retry budget (`retry-budget.ts`) per target, where a target is a
 * provider, base URL, model and credential. The credential is kept only as a salted hash (a
 * random salt per process), so no key is held here or shown in a span or metric.
 *
 * Built once at startup and shared by every request; nothing is shared between processes. The
 * number of targets is bounded: past `maxTargets`, the oldest closed target is forgotten.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { RetryBudget } from './retry-budget.js';
import { TargetHealth, type BreakerState } from './target-health.js';

/** Who a target is, as routing resolved it. */
export interface TargetIdentity {
  /** `gen_ai.provider.name` of its provider, e.g. `gcp.gemini` (for spans and metrics). */
  providerName: string;
  baseUrl: string;
  model: string;
  apiKey: string;
}

export interface TargetEntry {
  readonly health: TargetHealth;
  readonly budget: RetryBudget;
  readonly providerName: string;
  readonly baseUrl: string;
  readonly model: string;
  /** 12 hex of a salted hash of the credential: tells targets apart, reveals nothing. */
  readonly credentialId: string;
}

export interface TargetHealthOptions {
  /** `SIDEGATE_CIRCUIT_BREAKER`: false turns breaking off (no target is ever skipped). */
  circuitBreaker: boolean;
  /** `SIDEGATE_RETRY_BUDGET_PERCENT`: the budget of a config that sets no `retry.budget_percent`. */
  retryBudgetPercent: number;
  /** Injected for tests. Default `Date.now`. */
  clock?: () => number;
  /** Injected for tests (cooldown jitter). Default `Math.random`. */
  random?: () => number;
  /** Default 1024. */
  maxTargets?: number;
}

const MAX_CREDENTIAL_IDS = 4096;

export class TargetHealthRegistry {
  readonly circuitBreaker: boolean;
  readonly retryBudgetPercent: number;
  readonly #clock: () => number;
  readonly #random: () => number;
  readonly #maxTargets: number;
  readonly #targets = new Map<string, TargetEntry>();
  readonly #salt = randomBytes(16);
  readonly #credentialIds = new Map<string, string>();
  /** Targets whose breaker is not closed (kept by their `onOpenChange`), so `anyOpen` is one read. */
  #notClosed = 0;
  readonly #countOpen = (open: boolean) => {
    this.#notClosed = Math.max(0, this.#notClosed + (open ? 1 : -1));
  };

  constructor(options: TargetHealthOptions) {
    this.circuitBreaker = options.circuitBreaker;
    this.retryBudgetPercent = options.retryBudgetPercent;
    this.#clock = options.clock ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#maxTargets = options.maxTargets ?? 1024;
  }

  /** The entry of a target, created on first use. */
  entry(target: TargetIdentity): TargetEntry {
    const credentialId = this.#credentialId(target.apiKey);
    const key = `${target.providerName}\n${target.baseUrl}\n${target.model}\n${credentialId}`;
    let entry = this.#targets.get(key);
    if (entry === undefined) {
      if (this.#targets.size >= this.#maxTargets) this.#forgetOne();
      entry = {
        health: new TargetHealth(this.#clock, this.#random, this.#countOpen),
        budget: new RetryBudget(this.#clock),
        providerName: target.providerName,
        baseUrl: target.baseUrl,
        model: target.model,
        credentialId,
      };
      this.#targets.set(key, entry);
    }
    return entry;
  }

  /** True when some target is not closed (so a load-balanced group must look before it picks). */
  anyOpen(): boolean {
    return this.circuitBreaker && this.#notClosed > 0;
  }

  /** Every known target and its state, for the `sidegate.breaker.state` gauge. */
  *readings(): Generator<TargetEntry & { state: BreakerState }> {
    for (const entry of this.#targets.values()) yield Object.assign({ state: entry.health.state() }, entry);
  }

  #credentialId(apiKey: string): string {
    let id = this.#credentialIds.get(apiKey);
    if (id === undefined) {
      if (this.#credentialIds.size >= MAX_CREDENTIAL_IDS) this.#credentialIds.clear();
      id = createHmac('sha256', this.#salt).update(apiKey).digest('hex').slice(0, 12);
      this.#credentialIds.set(apiKey, id);
    }
    return id;
  }

  #forgetOne(): void {
    for (const [key, entry] of this.#targets) {
      if (entry.health.state() === 'closed') {
        this.#targets.delete(key);
        return;
      }
    }
    // Every target is open: forget the oldest anyway (bounded memory wins).
    this.#notClosed -= 1;
    this.#targets.delete(this.#targets.keys().next().value!);
  }
}
