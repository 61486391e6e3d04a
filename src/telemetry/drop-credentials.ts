/**
 * What a logged HTTP call may put in a span (issue 8 item 1): credential headers are dropped by
 * name (`authorization`, `x-gateway-api-key`, `x-goog-api-key`, `api-key`, cookies, …), and so is
 * any header whose value looks like a key; URL query parameters get the same treatment. Dropped,
 * not masked: a span never holds even part of a secret. Pure.
 */

import { looksLikeSecret, scrubSecretsStrict } from '../scrub-secrets.js';

const CREDENTIAL_NAME = /(^|[-_])(authorization|auth|api[-_]?key|apikey|key|token|secret|password|passwd|cookie|session|signature|sig|credential|credentials)([-_]|$)/i;
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-gateway-api-key',
  'x-portkey-api-key',
  'x-goog-api-key',
  'api-key',
  'x-api-key',
  'x-gateway-virtual-key',
  'x-portkey-virtual-key',
]);

/** True when a header or parameter value looks like a secret (the one scrubber's rule). */
export const looksLikeKey = looksLikeSecret;

export function isCredentialName(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADERS.has(lower) || CREDENTIAL_NAME.test(lower);
}

/**
 * Headers safe to export, lower-cased names, each value as a list (the semconv shape of
 * `http.request.header.<name>`). Credential names and key-like values are left out.
 */
export function dropCredentialHeaders(headers: Readonly<Record<string, string | readonly string[]>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (isCredentialName(name)) continue;
    const values = (typeof raw === 'string' ? [raw] : [...raw]).filter((v) => !looksLikeKey(v));
    if (values.length > 0) out[name.toLowerCase()] = values;
  }
  return out;
}

/**
 * The URL without user info, fragment, or any query parameter whose name or value looks like a
 * credential (`?key=AIza…` is how Gemini keys travel). Undefined when it is not a URL.
 */
export function dropCredentialParams(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  parsed.username = '';
  parsed.password = '';
  parsed.hash = '';
  for (const [name, value] of [...parsed.searchParams]) {
    if (isCredentialName(name) || looksLikeKey(value)) parsed.searchParams.delete(name);
  }
  // Path segments one by one: a whole path is long without being a secret.
  if (parsed.pathname.split('/').some((segment) => looksLikeKey(decodeURIComponentSafe(segment)))) {
    return `${parsed.origin}/[path omitted]${parsed.search}`;
  }
  return parsed.toString();
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Free text (a logged body) with every key-like run replaced by `[redacted]`. */
export function redactKeys(text: string): string {
  return scrubSecretsStrict(text);
}
