import { describe, expect, it } from 'vitest';
import { AuthError, ClientAbortError, InvalidRequestError, UpstreamError } from '../errors.js';
import { DEFAULT_RETRY_STATUS_CODES, type RetryPolicy } from '../config/routing-config.js';
import { routingStatusOf, shouldFallback, shouldRetry } from './retry-policy.js';

const upstream = (status: number) => new UpstreamError('upstream failed', { status });
const timeout = new UpstreamError('timed out', { status: 504, reason: 'timeout' });
const dropped = new UpstreamError('connection dropped', { status: 502, reason: 'connection_error' });
const policy: RetryPolicy = { attempts: 2, onStatusCodes: DEFAULT_RETRY_STATUS_CODES, useRetryAfterHeader: false };

describe('routingStatusOf', () => {
  it.each([
    { name: 'timeout is 408', err: timeout, want: 408 },
    { name: 'upstream status', err: upstream(503), want: 503 },
    { name: 'connection error keeps 502', err: dropped, want: 502 },
    { name: 'auth error', err: new AuthError('unknown virtual key'), want: 401 },
    { name: 'unknown error', err: new Error('boom'), want: undefined },
  ])('$name', ({ err, want }) => expect(routingStatusOf(err)).toBe(want));
});

describe('shouldRetry', () => {
  it.each([
    { name: '503 with default codes', policy, err: upstream(503), want: true },
    { name: '429 with default codes', policy, err: upstream(429), want: true },
    { name: '501 is not a default code', policy, err: upstream(501), want: false },
    { name: '400 never by default', policy, err: upstream(400), want: false },
    { name: 'configured codes only', policy: { ...policy, onStatusCodes: [500] }, err: upstream(503), want: false },
    { name: 'timeout always', policy: { ...policy, onStatusCodes: [500] }, err: timeout, want: true },
    { name: 'connection error always', policy: { ...policy, onStatusCodes: [500] }, err: dropped, want: true },
    { name: 'no retries configured', policy: { ...policy, attempts: 0 }, err: upstream(503), want: false },
    { name: 'client abort', policy, err: new ClientAbortError(), want: false },
    { name: 'our own 400', policy, err: new InvalidRequestError('bad'), want: false },
  ])('$name → $want', ({ policy: p, err, want }) => expect(shouldRetry(p, err)).toBe(want));
});

describe('shouldFallback', () => {
  const byDefault = { mode: 'fallback' as const };
  const configured = { mode: 'fallback' as const, onStatusCodes: [400, 503] };
  it.each([
    { name: 'default: 429', strategy: byDefault, err: upstream(429), want: true },
    { name: 'default: 500', strategy: byDefault, err: upstream(500), want: true },
    { name: 'default: 400 does not', strategy: byDefault, err: upstream(400), want: false },
    { name: 'default: 401 does not', strategy: byDefault, err: new AuthError('x'), want: false },
    { name: 'default: timeout', strategy: byDefault, err: timeout, want: true },
    { name: 'default: connection error', strategy: byDefault, err: dropped, want: true },
    { name: 'configured: 400 does', strategy: configured, err: upstream(400), want: true },
    { name: 'configured: our own 400 does', strategy: configured, err: new InvalidRequestError('x'), want: true },
    { name: 'configured: 500 does not', strategy: configured, err: upstream(500), want: false },
    { name: 'configured: timeout still does', strategy: configured, err: timeout, want: true },
    { name: 'configured 408 list: timeout', strategy: { mode: 'fallback' as const, onStatusCodes: [408] }, err: timeout, want: true },
    { name: 'client abort never', strategy: byDefault, err: new ClientAbortError(), want: false },
    { name: 'unknown error never', strategy: byDefault, err: new Error('bug'), want: false },
  ])('$name', ({ strategy, err, want }) => expect(shouldFallback(strategy, err)).toBe(want));
});
