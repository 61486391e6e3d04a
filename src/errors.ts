/**
 * The few error types that may reach a client, and the one mapping to the OpenAI error envelope.
 *
 * Only these types show their message; anything else becomes a generic 500. Messages are written
 * by us or copied from the provider's error body, never built from request headers, so a key can
 * never end up in one.
 */

import { scrubSecrets } from './scrub-secrets.js';

export type OpenAIErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'server_error';

export interface OpenAIErrorBody {
  error: { message: string; type: OpenAIErrorType; param: string | null; code: string | null };
}

export abstract class GatewayError extends Error {
  abstract readonly status: number;
  abstract readonly type: OpenAIErrorType;
  readonly param: string | null;
  readonly code: string | null;
  /** Seconds the client should wait before retrying, when known (sent as `Retry-After`). */
  retryAfterSeconds: number | undefined;

  constructor(message: string, options: { param?: string | null; code?: string | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.param = options.param ?? null;
    this.code = options.code ?? null;
  }

  toBody(): OpenAIErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** 400: the request cannot be served as written. `param` names the offending field. */
export class InvalidRequestError extends GatewayError {
  readonly status = 400;
  readonly type = 'invalid_request_error' as const;
}

/** 405: the route exists, not with this method (the app sets `Allow`). */
export class MethodNotAllowedError extends GatewayError {
  readonly status = 405;
  readonly type = 'invalid_request_error' as const;
}

/** 409: the request conflicts with the gateway's state (a slug that exists, a read-only store). */
export class ConflictError extends GatewayError {
  readonly status = 409;
  readonly type = 'invalid_request_error' as const;
}

/** 413: a body or file over a configured limit (the app closes the connection after it). */
export class PayloadTooLargeError extends GatewayError {
  readonly status = 413;
  readonly type = 'invalid_request_error' as const;
}

/** 401/403: the gateway key or the provider credential is missing or wrong. */
export class AuthError extends GatewayError {
  readonly status: number;
  readonly type: OpenAIErrorType;
  constructor(message: string, options: { status?: 401 | 403; code?: string | null; param?: string | null } = {}) {
    super(message, options);
    this.status = options.status ?? 401;
    this.type = this.status === 403 ? 'permission_error' : 'authentication_error';
  }
}

/**
 * 404 for routes and resources of the gateway itself. OpenAI answers an unknown model with type
 * `invalid_request_error`, so the envelope type may say so; the status is always 404.
 */
export class NotFoundError extends GatewayError {
  readonly status = 404;
  readonly type: 'not_found_error' | 'invalid_request_error';
  constructor(message: string, options: { param?: string | null; code?: string | null; type?: 'invalid_request_error' } = {}) {
    super(message, options);
    this.type = options.type ?? 'not_found_error';
  }
}

/**
 * Any failure of an upstream attempt: an error status from the provider, a dropped or refused
 * connection (502), or a timeout (504). `retryable` drives routing's retry and fallback.
 */
export class UpstreamError extends GatewayError {
  readonly status: number;
  readonly type: OpenAIErrorType;
  readonly retryable: boolean;
  /** Stable, low-cardinality reason for `error.type` on spans: the status code, `timeout`, `connection_error`, … */
  readonly reason: string;

  constructor(
    message: string,
    options: {
      status: number;
      reason?: string;
      retryable?: boolean;
      retryAfterSeconds?: number;
      code?: string | null;
      param?: string | null;
      cause?: unknown;
    },
  ) {
    super(message, options);
    this.status = options.status;
    this.reason = options.reason ?? String(options.status);
    this.retryable = options.retryable ?? isRetryableStatus(options.status);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.type = errorTypeForStatus(options.status);
  }
}

/** The client went away; nothing is written back, but spans end with `error.type` `cancelled`. */
export class ClientAbortError extends Error {
  constructor() {
    super('client closed the request');
  }
}

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function errorTypeForStatus(status: number): OpenAIErrorType {
  if (status === 400 || status === 413 || status === 422) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status === 408 || status === 504) return 'timeout_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** Turns anything thrown into a status and an OpenAI envelope. Unknown errors never show their message. */
export function toErrorResponse(err: unknown): { status: number; body: OpenAIErrorBody; retryAfterSeconds?: number } {
  if (err instanceof GatewayError) {
    const body = err.toBody();
    // Defence in depth: providers scrub with the exact key; nothing shaped like a key leaves here.
    body.error.message = scrubSecrets(body.error.message);
    return {
      status: err.status,
      body,
      ...(err.retryAfterSeconds !== undefined ? { retryAfterSeconds: err.retryAfterSeconds } : {}),
    };
  }
  return {
    status: 500,
    body: { error: { message: 'internal error in the gateway', type: 'server_error', param: null, code: 'internal_error' } },
  };
}

/** 503 from the gateway itself: over its in-flight budget. Retry shortly (`Retry-After: 1`). */
export class OverloadError extends GatewayError {
  readonly status = 503;
  readonly type = 'api_error' as const;
  constructor(message: string) {
    super(message, { code: 'overloaded' });
    this.retryAfterSeconds = 1;
  }
}

/**
 * 503 from the gateway itself: every target this request could use is cooling down after failures
 * (routing's circuit breakers, `on_all_open: "fail_fast"`). `Retry-After` says when the soonest
 * one may be tried again.
 */
export class AllTargetsCoolingDownError extends GatewayError {
  readonly status = 503;
  readonly type = 'api_error' as const;
  constructor(retryInMs: number) {
    const seconds = Math.max(1, Math.ceil((Number.isFinite(retryInMs) ? retryInMs : 0) / 1000));
    super(`every target of this request is cooling down after upstream failures; retry after ${seconds} s`, { code: 'all_targets_cooling_down' });
    this.retryAfterSeconds = seconds;
  }
}
