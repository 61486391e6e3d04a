/**
 * Gateway-key check. Keys are compared as SHA-256 digests with `timingSafeEqual`, so neither the
 * content nor the length of a configured key leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AuthError } from '../errors.js';
import { canonicalHeader } from '../config/header-aliases.js';

export type GatewayKeyCheck = (headers: IncomingHttpHeaders) => void;

export function createGatewayKeyCheck(keys: readonly string[]): GatewayKeyCheck {
  if (keys.length === 0) throw new Error('at least one gateway key is required');
  const digests = keys.map(digest);
  // Digests of recently presented keys: a sidecar sees the same one or two keys on every request,
  // so the SHA-256 runs once per key, not once per request. Bounded; cleared when full.
  const recent = new Map<string, Buffer>();
  return (headers) => {
    const presented = canonicalHeader(headers, 'x-gateway-api-key');
    if (!presented) throw new AuthError('missing gateway key: send it in the x-gateway-api-key header', { code: 'missing_api_key' });
    let candidate = recent.get(presented);
    if (candidate === undefined) {
      candidate = digest(presented);
      if (recent.size >= 64) recent.clear();
      recent.set(presented, candidate);
    }
    let ok = false;
    // Compare against every key (no early exit) so the matching position does not leak either.
    for (const d of digests) ok = timingSafeEqual(candidate, d) || ok;
    if (!ok) throw new AuthError('invalid gateway key in x-gateway-api-key', { code: 'invalid_api_key' });
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
