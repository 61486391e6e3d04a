import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClientAbortError } from '../errors.js';
import { MAX_RETRY_DELAY_MS, retryDelayMs, sleep } from './backoff.js';

describe('retryDelayMs', () => {
  const cases: Array<{ name: string; retryIndex: number; random: number; retryAfterSeconds?: number; useRetryAfterHeader?: boolean; want: number }> = [
    { name: 'first retry, top of the window', retryIndex: 0, random: 0.999999, want: 499 },
    { name: 'first retry, bottom of the window (full jitter reaches 0)', retryIndex: 0, random: 0, want: 0 },
    { name: 'second retry doubles the window', retryIndex: 1, random: 0.5, want: 500 },
    { name: 'third retry', retryIndex: 2, random: 0.5, want: 1000 },
    { name: 'window is capped at maxMs', retryIndex: 10, random: 0.5, want: 4000 },
    { name: 'huge retry index stays finite', retryIndex: 5000, random: 0.5, want: 4000 },
    { name: 'Retry-After ignored unless asked', retryIndex: 0, random: 0.5, retryAfterSeconds: 7, want: 250 },
    { name: 'Retry-After honoured when asked', retryIndex: 0, random: 0.5, retryAfterSeconds: 7, useRetryAfterHeader: true, want: 7000 },
    { name: 'fractional Retry-After', retryIndex: 0, random: 0.5, retryAfterSeconds: 0.25, useRetryAfterHeader: true, want: 250 },
    { name: 'Retry-After capped at 60 s', retryIndex: 0, random: 0.5, retryAfterSeconds: 3600, useRetryAfterHeader: true, want: MAX_RETRY_DELAY_MS },
    { name: 'asked but absent falls back to backoff', retryIndex: 1, random: 0.25, useRetryAfterHeader: true, want: 250 },
  ];

  it.each(cases)('$name', ({ retryIndex, random, retryAfterSeconds, useRetryAfterHeader, want }) => {
    expect(
      retryDelayMs({ retryIndex, retryAfterSeconds, useRetryAfterHeader: useRetryAfterHeader ?? false }, { random: () => random }),
    ).toBe(want);
  });

  it('uses custom base and ceiling', () => {
    expect(retryDelayMs({ retryIndex: 3, useRetryAfterHeader: false }, { baseMs: 100, maxMs: 500, random: () => 0.999 })).toBe(499);
  });
});

describe('sleep', () => {
  it('resolves after the wait', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
  });

  it('rejects with ClientAbortError when the signal aborts', async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(ClientAbortError);
  });

  it('rejects at once on an already-aborted signal', async () => {
    await expect(sleep(60_000, AbortSignal.abort())).rejects.toBeInstanceOf(ClientAbortError);
  });

  describe('never before its time', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    // Node's timers count whole milliseconds and fire up to one early by the clock; a retry that
    // waits out a breaker's cooldown and wakes inside it is refused as cooling down.
    it('waits on when its timer fires before the time has passed', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }); // the timer fires at once; the clock is real
      let done = false;
      void sleep(50).then(() => (done = true));
      await vi.advanceTimersByTimeAsync(50);
      expect(done).toBe(false);
    });

    it('is still cancelled by the signal while it waits on', async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const controller = new AbortController();
      const waiting = sleep(50, controller.signal);
      await vi.advanceTimersByTimeAsync(50);
      controller.abort();
      await expect(waiting).rejects.toBeInstanceOf(ClientAbortError);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
