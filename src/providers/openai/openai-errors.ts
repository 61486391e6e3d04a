/**
 * Maps an OpenAI-compatible error answer to an `UpstreamError`: the upstream's status and
 * message pass through (OpenAI envelope `{"error":{"message","type","code","param"}}`), with
 * the retry delay from `retry-after-ms` / `Retry-After`. Keys are scrubbed from messages: OpenAI
 * echoes a masked key in 401s ("Incorrect API key provided: sk-ab***yz").
 */
import { UpstreamError } from '../../errors.js';
import { parseRetryAfter } from '../retry-after.js';
import { scrubSecrets } from '../../scrub-secrets.js';

export function parseOpenAIError(
  status: number,
  bodyText: string,
  options: { retryAfterHeader?: string | undefined; retryAfterMsHeader?: string | undefined; apiKey?: string } = {},
): UpstreamError {
  let message = `upstream answered ${status}`;
  let code: string | null = null;
  let param: string | null = null;
  try {
    const json: unknown = JSON.parse(bodyText);
    const error = (json as { error?: unknown })?.error;
    if (typeof error === 'object' && error !== null) {
      const e = error as Record<string, unknown>;
      if (typeof e.message === 'string' && e.message !== '') message = e.message;
      if (typeof e.code === 'string') code = e.code;
      else if (typeof e.code === 'number') code = String(e.code);
      if (typeof e.param === 'string') param = e.param;
    } else if (typeof error === 'string' && error !== '') {
      message = error;
    }
  } catch {
    // not JSON: keep the generic message rather than relaying arbitrary upstream text
  }
  const retryAfterSeconds = parseRetryAfterMs(options.retryAfterMsHeader) ?? parseRetryAfter(options.retryAfterHeader);
  return new UpstreamError(scrubSecrets(message, [options.apiKey]), {
    status: status >= 400 && status <= 599 ? status : 502,
    ...(status >= 400 && status <= 599 ? {} : { reason: 'invalid_response' }),
    code,
    param,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });
}

export { parseRetryAfter };

function parseRetryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
  return Number(value.trim()) / 1000;
}
