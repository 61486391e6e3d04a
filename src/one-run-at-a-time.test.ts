import { describe, expect, it } from 'vitest';
import { oneRunAtATime } from './one-run-at-a-time.js';

describe('oneRunAtATime', () => {
  it('runs once more after the running run for all the calls made during it, never two at once', async () => {
    let runs = 0;
    let active = 0;
    let maxActive = 0;
    let release!: () => void;
    const reload = oneRunAtATime(async () => {
      runs++;
      active++;
      maxActive = Math.max(maxActive, active);
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
      active--;
    });
    const first = reload();
    const second = reload();
    const third = reload();
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    release();
    await first;
    await second;
    expect(runs).toBe(2);
    expect(maxActive).toBe(1);
  });

  it('runs again for a call after the previous run ended', async () => {
    let runs = 0;
    const reload = oneRunAtATime(async () => {
      runs++;
    });
    await reload();
    await reload();
    expect(runs).toBe(2);
  });
});
