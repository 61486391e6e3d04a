/**
 * The two routing decisions after a failed attempt, as pure functions of the error and the
 * config: retry the same target, or move on to the next fallback target. Timeouts count as 408
 * for the decision (seed §5) and, like dropped or refused connections, always allow both
 * (DESIGN Decision 6). A client abort never does.
 */
import { ClientAbortError, GatewayError, UpstreamError } from '../errors.js';
import type { RetryPolicy, Strategy } from '../config/routing-config.js';

/** `UpstreamError.reason` values the providers use for failures without an upstream status. */
export const TIMEOUT_REASON = 'timeout';
export const CONNECTION_ERROR_REASON = 'connection_error';

/** The status routing reasons about: 408 for a timeout, the error's own status otherwise. */
export function routingStatusOf(err: unknown): number | undefined {
  if (err instanceof UpstreamError && err.reason === TIMEOUT_REASON) return 408;
  if (err instanceof GatewayError) return err.status;
  return undefined;
}

function isNetworkFailure(err: unknown): boolean {
  return err instanceof UpstreamError && (err.reason === TIMEOUT_REASON || err.reason === CONNECTION_ERROR_REASON);
}

/**
 * Whether the failed attempt may be tried again on the same target. The caller also checks the
 * count: retry number `n` (1-based) is allowed while `n <= policy.attempts`.
 */
export function shouldRetry(policy: RetryPolicy, err: unknown): boolean {
  if (policy.attempts === 0 || err instanceof ClientAbortError || !(err instanceof UpstreamError)) return false;
  if (isNetworkFailure(err)) return true;
  return policy.onStatusCodes.includes(err.status);
}

/**
 * Whether a fallback group moves on to its next target after this failure (retries of the
 * failed target already spent). Default codes: 429 and any 5xx; a 4xx such as 400 only when
 * listed in `strategy.on_status_codes`.
 */
export function shouldFallback(strategy: Extract<Strategy, { mode: 'fallback' }>, err: unknown): boolean {
  if (err instanceof ClientAbortError) return false;
  if (isNetworkFailure(err)) return true;
  const status = routingStatusOf(err);
  if (status === undefined) return false;
  return strategy.onStatusCodes ? strategy.onStatusCodes.includes(status) : status === 429 || status >= 500;
}
