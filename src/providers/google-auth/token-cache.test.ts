import { describe, expect, it } from 'vitest';
import { TokenCache, TokenFetchTimeout, type AccessToken } from './token-cache.js';

function source(lifetimesMs: number[], now: () => number) {
  const calls: number[] = [];
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  return {
    calls,
    hold() {
      gate = new Promise<void>((r) => (release = r));
    },
    open() {
      release?.();
    },
    fetch: async (): Promise<AccessToken> => {
      calls.push(now());
      if (gate) await gate;
      const n = calls.length;
      return { token: `t${n}`, expiresAt: now() + (lifetimesMs[n - 1] ?? 3_600_000) };
    },
  };
}

describe('TokenCache', () => {
  it('fetches once, then serves the cached token until the refresh margin', async () => {
    let t = 0;
    const s = source([3_600_000, 3_600_000], () => t);
    const cache = new TokenCache(s.fetch, { refreshMarginMs: 180_000, now: () => t });
    expect(await cache.get()).toBe('t1');
    t = 3_600_000 - 180_001;
    expect(await cache.get()).toBe('t1');
    t = 3_600_000 - 180_000;
    expect(await cache.get()).toBe('t2');
    expect(s.calls).toHaveLength(2);
  });

  it('50 waiters on an expiring token share exactly one refresh', async () => {
    let t = 0;
    const s = source([60_000], () => t); // shorter than the margin: expiring at once
    const cache = new TokenCache(s.fetch, { refreshMarginMs: 180_000, now: () => t });
    expect(await cache.get()).toBe('t1');
    s.hold();
    const waiting = Array.from({ length: 50 }, () => cache.get());
    s.open();
    expect(new Set(await Promise.all(waiting))).toStrictEqual(new Set(['t2']));
    expect(s.calls).toHaveLength(2);
  });

  it('a failed refresh rejects every waiter and the next call tries again', async () => {
    let fail = true;
    let n = 0;
    const cache = new TokenCache(async () => {
      n++;
      if (fail) throw new Error('metadata server said no');
      return { token: 'ok', expiresAt: Date.now() + 3_600_000 };
    });
    const results = await Promise.allSettled([cache.get(), cache.get(), cache.get()]);
    expect(results.map((r) => r.status)).toStrictEqual(['rejected', 'rejected', 'rejected']);
    expect(n).toBe(1);
    fail = false;
    expect(await cache.get()).toBe('ok');
    expect(n).toBe(2);
  });

  it('a refresh that never answers fails after the fetch timeout instead of hanging', async () => {
    const cache = new TokenCache(() => new Promise<AccessToken>(() => {}), { fetchTimeoutMs: 20 });
    await expect(cache.get()).rejects.toBeInstanceOf(TokenFetchTimeout);
  });

  it('invalidate drops only the token it names', async () => {
    let n = 0;
    const cache = new TokenCache(async () => ({ token: `t${++n}`, expiresAt: Date.now() + 3_600_000 }));
    expect(await cache.get()).toBe('t1');
    cache.invalidate('other');
    expect(await cache.get()).toBe('t1');
    cache.invalidate('t1');
    expect(await cache.get()).toBe('t2');
  });
});
