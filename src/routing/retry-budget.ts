/**
 * The retry budget of one target (issue 24, after Envoy's `retry_budget`): retries toward it are
 * allowed while they stay under `percent` of the requests sent to it over the last 10 s, with a
 * floor of a few retries per second so a quiet sidecar can still retry. Requests are first tries
 * only (a retry or a fallback from another target is not a new request to this one), so with 20 %
 * a target that fails everything gets at most about 1.2 tries per client request.
 *
 * The window is ten one-second buckets; pure but for the injected clock. One instance per target.
 */

export const RETRY_BUDGET_WINDOW_MS = 10_000;
const BUCKETS = 10;
const BUCKET_MS = RETRY_BUDGET_WINDOW_MS / BUCKETS;
/** Retries per second always allowed, whatever the share (Envoy's `min_retry_concurrency` is 3). */
export const MIN_RETRIES_PER_SECOND = 3;

export class RetryBudget {
  readonly #requests = new Array<number>(BUCKETS).fill(0);
  readonly #retries = new Array<number>(BUCKETS).fill(0);
  /** The second each bucket counts; a bucket of an older second is stale and counts as empty. */
  readonly #seconds = new Array<number>(BUCKETS).fill(-Infinity);

  constructor(private readonly clock: () => number) {}

  /** A first try of a client request was sent to the target. */
  recordRequest(): void {
    this.#requests[this.#bucket()]! += 1;
  }

  /** Whether one more retry fits in the budget; if it does, it is counted. */
  tryRetry(percent: number): boolean {
    const now = this.#bucket();
    const second = this.#seconds[now]!;
    let requests = 0;
    let retries = 0;
    for (let i = 0; i < BUCKETS; i++) {
      if (this.#seconds[i]! > second - BUCKETS) {
        requests += this.#requests[i]!;
        retries += this.#retries[i]!;
      }
    }
    const allowed = Math.max((MIN_RETRIES_PER_SECOND * RETRY_BUDGET_WINDOW_MS) / 1000, (requests * percent) / 100);
    if (retries + 1 > allowed) return false;
    this.#retries[now]! += 1;
    return true;
  }

  /** The bucket of the current second, emptied first if it held an older second. */
  #bucket(): number {
    const second = Math.floor(this.clock() / BUCKET_MS);
    const i = ((second % BUCKETS) + BUCKETS) % BUCKETS;
    if (this.#seconds[i] !== second) {
      this.#seconds[i] = second;
      this.#requests[i] = 0;
      this.#retries[i] = 0;
    }
    return i;
  }
}
