/**
 * Gateway-key and admin-key checks (the admin key guards the admin routes of several front doors:
 * virtual keys, prompts). Keys are compared as SHA-256 digests with `timingSafeEqual`, so neither the
 * content nor the length of a configured key leaks through timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AuthError, NotFoundError } from '../errors.js';
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

/** Throws 404 when admin is off, 401 for a missing or wrong key (compared as SHA-256 digests). */
export function adminKeyCheck(adminKey: string | undefined): (headers: IncomingHttpHeaders) => void {
  const want = adminKey === undefined ? undefined : digest(adminKey);
  return (headers) => {
    if (want === undefined) throw new NotFoundError('Unknown route (admin API is off: set SIDEGATE_ADMIN_KEY)', { code: 'unknown_route' });
    const bearer = canonicalHeader(headers, 'authorization')?.trim().replace(/^bearer\s+/i, '');
    const presented = canonicalHeader(headers, 'x-gateway-api-key') ?? bearer;
    if (!presented) throw new AuthError('missing admin key: send it in x-gateway-api-key or Authorization: Bearer', { code: 'missing_admin_key' });
    if (!timingSafeEqual(digest(presented), want)) {
      // A gateway key in x-gateway-api-key with the admin key in Authorization is also accepted.
      if (bearer === undefined || !timingSafeEqual(digest(bearer), want)) {
        throw new AuthError('invalid admin key', { code: 'invalid_admin_key' });
      }
    }
  };
}
