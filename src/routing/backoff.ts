/**
 * How long to wait before retrying the same target: exponential backoff with full jitter
 * (AWS architecture blog, "Exponential Backoff And Jitter"), bounded, or the upstream's
 * `Retry-After` when the config asks for it (`retry.use_retry_after_header`). Pure except for
 * the injected `random`; `sleep` is injected by the caller so tests never wait.
 */
import type { ClientSignal } from '../client-signal.js';
import { ClientAbortError } from '../errors.js';

/** Upper bound of any wait, including an upstream's `Retry-After` (seed: capped at 60 s). */
export const MAX_RETRY_DELAY_MS = 60_000;

/** Default ceiling of a backoff window. */
export const MAX_BACKOFF_MS = 8_000;

export interface BackoffOptions {
  /** Ceiling of the first retry's window; doubles each retry. Default 500 ms. */
  baseMs?: number;
  /** Ceiling of any backoff window (before `Retry-After`). Default 8 s. */
  maxMs?: number;
  /** Returns a number in [0, 1). Default `Math.random`. */
  random?: () => number;
}

export interface RetryDelayInput {
  /** 0 for the first retry of a target, 1 for the second, … */
  retryIndex: number;
  /** `UpstreamError.retryAfterSeconds` of the failed attempt, if any. */
  retryAfterSeconds?: number | undefined;
  /** `RetryPolicy.useRetryAfterHeader`. */
  useRetryAfterHeader: boolean;
}

/** Milliseconds to wait before the next try of the same target. */
export function retryDelayMs(input: RetryDelayInput, options: BackoffOptions = {}): number {
  if (input.useRetryAfterHeader && input.retryAfterSeconds !== undefined && Number.isFinite(input.retryAfterSeconds)) {
    return Math.min(Math.max(0, Math.round(input.retryAfterSeconds * 1000)), MAX_RETRY_DELAY_MS);
  }
  const base = options.baseMs ?? 500;
  const max = Math.min(options.maxMs ?? MAX_BACKOFF_MS, MAX_RETRY_DELAY_MS);
  const random = options.random ?? Math.random;
  // 2 ** 30 keeps the exponent finite however many retries a caller counts.
  const window = Math.min(max, base * 2 ** Math.min(Math.max(0, input.retryIndex), 30));
  return Math.floor(random() * window);
}

export type Sleep = (ms: number, signal?: ClientSignal) => Promise<void>;

/**
 * Waits at least `ms` by the monotonic clock; rejects with `ClientAbortError` as soon as `signal`
 * aborts. Timers are unref'd.
 *
 * Why "at least": Node's timers count whole milliseconds and fire up to one before their time
 * (about one wait in a hundred here). A retry that waits out a breaker's cooldown and wakes inside
 * it would be refused as still cooling down, so a timer that fires early is set again for the rest.
 */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new ClientAbortError());
    const until = performance.now() + ms;
    let timer: ReturnType<typeof setTimeout>;
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ClientAbortError());
    };
    const wait = (left: number) => {
      timer = setTimeout(() => {
        const rest = until - performance.now();
        if (rest > 0) return wait(rest);
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, left);
      timer.unref();
    };
    wait(ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
