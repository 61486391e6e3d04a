/**
 * The one scrubber: every text that leaves the gateway and may hold a secret it did not write
 * (an upstream error message, an error event, a span status, a log line, a logged body) goes
 * through here, and so does every decision to echo a client-supplied value (a header, a path
 * segment) in an answer. Pure; no dependencies, so any module may use it.
 *
 * Two kinds of secret are removed:
 * - the exact values the caller knows are secret (the provider key of the attempt), wherever they
 *   appear, whatever their shape;
 * - anything shaped like a credential: Google API keys (`AIza…`), OAuth tokens (`ya29.…`),
 *   OpenAI-style keys (`sk-…`, masked `sk-ab***yz` too), gateway keys (`sg-…`), bearer/basic
 *   credentials, JWTs and PEM private keys (a service-account key's `private_key`).
 *
 * `looksLikeSecret` is stricter (it also flags any long unbroken token) because it decides whether
 * a short client-supplied value may be echoed at all; free text is not held to that rule, since
 * upstream messages legitimately carry long URLs.
 */

export const REDACTED = '[redacted]';

/** Credential shapes found inside free text (global regexes; `lastIndex` is never relied on). */
const KEY_SHAPES: readonly RegExp[] = [
  /\bBearer\s+[^\s"',;]+/gi,
  /\bBasic\s+[A-Za-z0-9+/=]{8,}/gi,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\bya29\.[0-9A-Za-z_-]{10,}/g,
  /\b(?:sk|rk|pk)-[A-Za-z0-9_*-]{4,}/g,
  /\bsg-[A-Za-z0-9_-]{16,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?/g,
  // A service-account key's private key (PEM, also with JSON-escaped line breaks).
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

/** Any long unbroken token: a bearer token, a hex secret, a signed URL part. */
const LONG_TOKEN = /[A-Za-z0-9_\-+/=.~]{32,}/g;

/** Exact secrets shorter than this are not searched for (too likely to match ordinary text). */
const MIN_KNOWN_SECRET = 6;

/**
 * `text` with every known secret and every credential-shaped run replaced by `[redacted]`.
 * `known` holds the exact secrets of the call (e.g. the attempt's provider key); undefined and
 * short entries are skipped.
 */
export function scrubSecrets(text: string, known: Iterable<string | undefined> = []): string {
  let out = text;
  for (const secret of known) {
    if (secret !== undefined && secret.length >= MIN_KNOWN_SECRET && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const shape of KEY_SHAPES) out = out.replace(shape, REDACTED);
  return out;
}

/** Like `scrubSecrets`, and also every long unbroken token (for logged request bodies). */
export function scrubSecretsStrict(text: string, known: Iterable<string | undefined> = []): string {
  return scrubSecrets(text, known).replace(LONG_TOKEN, REDACTED);
}

/** The same shapes without the global flag, for tests that must not carry state between calls. */
const SHAPE_TESTS: readonly RegExp[] = [...KEY_SHAPES, LONG_TOKEN].map((r) => new RegExp(r.source, r.flags.replace('g', '')));

/** True when a short client-supplied value (a header, a path segment, a parameter) looks like a secret. */
export function looksLikeSecret(value: string): boolean {
  return SHAPE_TESTS.some((shape) => shape.test(value));
}

/**
 * Scrubs an error's message in place (the same object keeps its type, status and retry data) and
 * returns it. For errors built from upstream text before they reach a client, a span or a log.
 */
export function scrubErrorMessage<E>(err: E, known: Iterable<string | undefined> = []): E {
  if (err instanceof Error) {
    const scrubbed = scrubSecrets(err.message, known);
    if (scrubbed !== err.message) err.message = scrubbed;
  }
  return err;
}
