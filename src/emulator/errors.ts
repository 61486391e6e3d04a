// Google API error bodies, built from gemini-wire.md §11 (shape §11.1, statuses and texts §11.2,
// auth texts §12). Pure; shared by every emulator route and by tests that script failures.

/** Canonical gRPC status name for each HTTP status Google answers with (§11.2). */
const STATUS_NAMES: ReadonlyMap<number, string> = new Map([
  [400, 'INVALID_ARGUMENT'],
  [401, 'UNAUTHENTICATED'],
  [402, 'RESOURCE_EXHAUSTED'],
  [403, 'PERMISSION_DENIED'],
  [404, 'NOT_FOUND'],
  [409, 'ABORTED'],
  [429, 'RESOURCE_EXHAUSTED'],
  [499, 'CANCELLED'],
  [500, 'INTERNAL'],
  [501, 'UNIMPLEMENTED'],
  [503, 'UNAVAILABLE'],
  [504, 'DEADLINE_EXCEEDED'],
]);

/** Default message per status, the texts Google sends most often (§11.2). */
const DEFAULT_MESSAGES: ReadonlyMap<number, string> = new Map([
  [400, 'Request contains an invalid argument.'],
  [403, 'The caller does not have permission'],
  [404, 'Requested entity was not found.'],
  [
    429,
    'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
  ],
  [500, 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting'],
  [503, 'The model is overloaded. Please try again later.'],
  [504, 'The request timed out. Please try again.'],
]);

export function statusNameFor(code: number): string {
  return STATUS_NAMES.get(code) ?? (code >= 500 ? 'INTERNAL' : code >= 400 ? 'FAILED_PRECONDITION' : 'OK');
}

/** Options of {@link googleError}. */
export interface GoogleErrorExtra {
  /** gRPC status name; defaults to the canonical one for the HTTP status. */
  status?: string;
  /** `google.rpc.*` detail messages, appended after any the helper adds itself. */
  details?: unknown[];
  /** For 429: the `RetryInfo.retryDelay` (a Duration string, default `"59s"`); `null` leaves RetryInfo out. */
  retryDelay?: string | null;
}

/** The §11.1 body `{"error":{"code","message","status","details"}}`. */
export interface GoogleErrorBody {
  error: { code: number; message: string; status: string; details?: unknown[] };
}

/**
 * Builds a Google error body. A 429 gets the `QuotaFailure`, `Help` and `RetryInfo` details of a
 * real quota error (§11.2), so gateways can read the retry delay from the body.
 */
export function googleError(code: number, message?: string, extra: GoogleErrorExtra = {}): GoogleErrorBody {
  const details: unknown[] = [];
  if (code === 429) {
    details.push(
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          },
        ],
      },
      {
        '@type': 'type.googleapis.com/google.rpc.Help',
        links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }],
      },
    );
    if (extra.retryDelay !== null) {
      details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: extra.retryDelay ?? '59s' });
    }
  }
  if (extra.details) details.push(...extra.details);
  const error: GoogleErrorBody['error'] = {
    code,
    message: message ?? DEFAULT_MESSAGES.get(code) ?? 'Unknown error.',
    status: extra.status ?? statusNameFor(code),
  };
  if (details.length > 0) error.details = details;
  return { error };
}

/** §12: no key at all. */
export function missingKeyError(): GoogleErrorBody {
  return googleError(
    403,
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  );
}

/** §11.1: a key that is not valid. */
export function invalidKeyError(): GoogleErrorBody {
  const message = 'API key not valid. Please pass a valid API key.';
  return googleError(400, message, {
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'API_KEY_INVALID',
        domain: 'googleapis.com',
        metadata: { service: 'generativelanguage.googleapis.com' },
      },
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
    ],
  });
}

/** §11.2: the exact 404 text for an unknown model (`method` is e.g. `generateContent`). */
export function modelNotFoundError(model: string, method: string): GoogleErrorBody {
  return googleError(
    404,
    `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
  );
}

/** One `BadRequest.fieldViolations` entry; `field` is absent for top-level problems. */
export interface FieldViolation {
  field?: string;
  description: string;
}

/** 400 with a `BadRequest` detail; the message joins the descriptions with `\n` (§2.4). */
export function badRequestError(violations: FieldViolation[]): GoogleErrorBody {
  return googleError(400, violations.map((v) => v.description).join('\n'), {
    details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: violations }],
  });
}
