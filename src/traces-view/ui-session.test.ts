import { describe, expect, it } from 'vitest';
import { createUiSessions, readCookie, sessionCookie } from './ui-session.js';

const NOW = 1_800_000_000_000;

describe('createUiSessions', () => {
  const sessions = createUiSessions({ ttlMs: 60_000 });

  it('accepts its own cookie until it expires', () => {
    const { value, maxAgeSeconds } = sessions.issue(NOW);
    expect(maxAgeSeconds).toStrictEqual(60);
    expect(sessions.isValid(value, NOW)).toStrictEqual(true);
    expect(sessions.isValid(value, NOW + 59_999)).toStrictEqual(true);
    expect(sessions.isValid(value, NOW + 60_000)).toStrictEqual(false);
  });

  it('refuses forged, altered, foreign and malformed values', () => {
    const { value } = sessions.issue(NOW);
    const [v, expires, nonce, mac] = value.split('.') as [string, string, string, string];
    const later = (NOW + 10 * 365 * 86_400_000).toString(36);
    const table = [
      undefined,
      '',
      'v1',
      `${v}.${later}.${nonce}.${mac}`, // expiry pushed out, old signature
      `${v}.${expires}.${nonce}x.${mac}`,
      `${v}.${expires}.${nonce}.${mac.slice(0, -1)}`,
      `v2.${expires}.${nonce}.${mac}`,
      createUiSessions().issue(NOW).value, // another process's secret
      'a'.repeat(500),
    ];
    for (const bad of table) expect(sessions.isValid(bad, NOW), String(bad)).toStrictEqual(false);
  });

  it('signs out: a revoked value is refused, others still work', () => {
    const a = sessions.issue(NOW).value;
    const b = sessions.issue(NOW).value;
    sessions.revoke(a, NOW);
    expect(sessions.isValid(a, NOW)).toStrictEqual(false);
    expect(sessions.isValid(b, NOW)).toStrictEqual(true);
  });

  it('never carries anything but an expiry, a nonce and a signature', () => {
    const { value } = sessions.issue(NOW);
    expect(value).toMatch(/^v1\.[0-9a-z]+\.[\w-]{22}\.[\w-]{43}$/);
  });
});

describe('cookies', () => {
  it('reads one cookie among others', () => {
    expect(readCookie('a=1; sidegate_ui=v1.x.y.z; b=2', 'sidegate_ui')).toStrictEqual('v1.x.y.z');
    expect(readCookie('sidegate_uix=1', 'sidegate_ui')).toBeUndefined();
    expect(readCookie(undefined, 'sidegate_ui')).toBeUndefined();
  });

  it('sets HttpOnly, SameSite=Strict, Path=/ui, and drops it with Max-Age=0', () => {
    expect(sessionCookie({ value: 'v1.a.b.c', maxAgeSeconds: 60 })).toStrictEqual('sidegate_ui=v1.a.b.c; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=60');
    expect(sessionCookie(undefined)).toStrictEqual('sidegate_ui=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0');
  });
});
