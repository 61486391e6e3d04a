/**
 * Gemini error bodies → `UpstreamError` (gemini-wire §11; DESIGN Decision 7). Pure.
 *
 * The client sees Gemini's status and message. The retry delay comes from the `Retry-After`
 * header when present, else from `google.rpc.RetryInfo.retryDelay` in the body. The message goes
 * through the one scrubber (`scrub-secrets.ts`): the provider key when known, and anything shaped
 * like a key in every case (an error object inside a 200 or a stream carries no key to compare).
 */
import { UpstreamError } from '../../errors.js';
import { WireErrorObject } from './wire-schemas.js';
import { parseRetryAfter } from '../retry-after.js';
import { scrubSecrets } from '../../scrub-secrets.js';

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';

export { parseRetryAfter as parseRetryAfterHeader };

/** Seconds from a protobuf Duration string such as `"59s"` or `"1.5s"`, rounded up. */
export function parseDuration(value: string | null | undefined): number | undefined {
  if (value == null) return undefined;
  const m = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return m ? Math.ceil(Number(m[1])) : undefined;
}

/** The `error` object of a Gemini body, in either `{error}` or `[{error}]` form; undefined if neither. */
export function extractErrorObject(body: unknown): WireErrorObject | undefined {
  const candidate = Array.isArray(body) ? body[0] : body;
  if (candidate === null || typeof candidate !== 'object' || !('error' in candidate)) return undefined;
  const parsed = WireErrorObject.safeParse((candidate as { error: unknown }).error);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Builds the error of a Gemini error object. `status` is the HTTP status when there was one
 * (an in-stream error has only `error.code`).
 */
export function upstreamErrorFromObject(
  error: WireErrorObject | undefined,
  options: { status?: number; retryAfterHeader?: string; apiKey?: string; fallbackMessage?: string } = {},
): UpstreamError {
  const status = options.status ?? (error?.code != null && error.code >= 400 ? error.code : 502);
  const message = scrubSecrets(error?.message || (options.fallbackMessage ?? `upstream answered HTTP ${status}`), [options.apiKey]);
  const retryDelay = error?.details?.find((d) => d['@type'] === RETRY_INFO)?.retryDelay;
  const retryAfterSeconds = parseRetryAfter(options.retryAfterHeader) ?? parseDuration(retryDelay);
  return new UpstreamError(message, {
    status,
    code: error?.status ? error.status.toLowerCase() : null,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });
}

/**
 * Builds the error of a failed HTTP answer from its raw body text. Tolerates JSON, a JSON array,
 * SSE-framed JSON (`data: {…}` on an error status with `text/event-stream`) and plain text.
 */
export function parseGeminiError(
  status: number,
  bodyText: string,
  options: { retryAfterHeader?: string; apiKey?: string; fallbackMessage?: string } = {},
): UpstreamError {
  let text = bodyText.trim();
  if (text.startsWith('data:')) {
    text = text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .join('\n');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = extractErrorObject(body);
  const fallback = text.length > 0 && text.length <= 500 && body === undefined ? { message: text } : undefined;
  return upstreamErrorFromObject(error ?? fallback, { status, ...options });
}
