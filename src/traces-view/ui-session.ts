/**
 * The Traces view's sign-in session (DESIGN Decision 19): a cookie holding an expiry time and a
 * random nonce, signed with HMAC-SHA256 under a secret drawn at random when the process starts.
 * It never holds the key that signed in, or anything derived from it; a restart (a new secret)
 * signs everyone out. Sign-out revokes the cookie's nonce in this process until it would have
 * expired anyway, so a copied cookie dies with the session. State: the revoked nonces (bounded).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'sidegate_ui';
export const DEFAULT_SESSION_TTL_MS = 8 * 3_600_000;
const MAX_REVOKED = 10_000;

export interface UiSessions {
  /** A fresh signed cookie value and its lifetime in seconds. */
  issue(nowMs: number): { value: string; maxAgeSeconds: number };
  /** True when the value is signed by this process, unexpired and not signed out. */
  isValid(value: string | undefined, nowMs: number): boolean;
  /** Signs the session out (a no-op for a value that is not valid). */
  revoke(value: string | undefined, nowMs: number): void;
}

export function createUiSessions(options: { secret?: Buffer; ttlMs?: number } = {}): UiSessions {
  const secret = options.secret ?? randomBytes(32);
  const ttlMs = options.ttlMs ?? DEFAULT_SESSION_TTL_MS;
  const revoked = new Map<string, number>(); // nonce → expiry (ms)
  const sign = (payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

  /** The nonce and expiry of a well-signed value, else undefined. */
  const open = (value: string | undefined): { nonce: string; expiresMs: number } | undefined => {
    if (value === undefined || value.length > 200) return undefined;
    const parts = value.split('.');
    if (parts.length !== 4 || parts[0] !== 'v1') return undefined;
    const [, expires, nonce, mac] = parts as [string, string, string, string];
    const want = Buffer.from(sign(`v1.${expires}.${nonce}`));
    const got = Buffer.from(mac);
    if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
    const expiresMs = Number.parseInt(expires, 36);
    return Number.isFinite(expiresMs) ? { nonce, expiresMs } : undefined;
  };

  return {
    issue(nowMs) {
      const payload = `v1.${(nowMs + ttlMs).toString(36)}.${randomBytes(16).toString('base64url')}`;
      return { value: `${payload}.${sign(payload)}`, maxAgeSeconds: Math.floor(ttlMs / 1000) };
    },
    isValid(value, nowMs) {
      const session = open(value);
      return session !== undefined && session.expiresMs > nowMs && !revoked.has(session.nonce);
    },
    revoke(value, nowMs) {
      const session = open(value);
      if (session === undefined || session.expiresMs <= nowMs) return;
      if (revoked.size >= MAX_REVOKED) for (const [nonce, expiresMs] of revoked) if (expiresMs <= nowMs) revoked.delete(nonce);
      if (revoked.size < MAX_REVOKED) revoked.set(session.nonce, session.expiresMs);
    },
  };
}

/** One cookie's value from a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** `Set-Cookie` for a session (or, with no value, the one that drops it). Scoped to the view's paths only. */
export function sessionCookie(session: { value: string; maxAgeSeconds: number } | undefined): string {
  return session === undefined
    ? `${SESSION_COOKIE}=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0`
    : `${SESSION_COOKIE}=${session.value}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=${session.maxAgeSeconds}`;
}
