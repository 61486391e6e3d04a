import { describe, expect, it } from 'vitest';
import { MIN_RETRIES_PER_SECOND, RETRY_BUDGET_WINDOW_MS, RetryBudget } from './retry-budget.js';

const FLOOR = (MIN_RETRIES_PER_SECOND * RETRY_BUDGET_WINDOW_MS) / 1000;

/** Sends `requests` first tries at `at`, then asks for up to `retries` retries; returns how many were allowed. */
type Step = { at: number; requests?: number; retries?: number; want?: number };

const cases: Array<{ name: string; percent: number; steps: Step[] }> = [
  {
    name: 'a quiet target still gets the floor of retries over the window',
    percent: 20,
    steps: [{ at: 0, requests: 1, retries: 100, want: FLOOR }],
  },
  {
    name: 'a busy target: 20 % of its requests in the window',
    percent: 20,
    steps: [{ at: 0, requests: 1000, retries: 1000, want: 200 }],
  },
  {
    name: 'requests and retries spread over the window all count',
    percent: 20,
    steps: [
      { at: 0, requests: 500 },
      { at: 5000, requests: 500, retries: 150, want: 150 },
      { at: 9999, retries: 100, want: 50 },
    ],
  },
  {
    name: 'the window slides: after 10 s the old second no longer counts',
    percent: 20,
    steps: [
      { at: 0, requests: 1000, retries: 200, want: 200 },
      { at: 9999, retries: 1, want: 0 },
      // Second 0 has left the window: neither its requests nor its retries count.
      { at: 10_000, requests: 100, retries: 100, want: FLOOR },
    ],
  },
  {
    name: 'a window of silence empties the budget of old retries',
    percent: 20,
    steps: [
      { at: 0, requests: 0, retries: 100, want: FLOOR },
      { at: 60_000, retries: 100, want: FLOOR },
    ],
  },
  {
    name: '0 % leaves only the floor',
    percent: 0,
    steps: [{ at: 0, requests: 10_000, retries: 1000, want: FLOOR }],
  },
  {
    name: '100 % allows one retry per request',
    percent: 100,
    steps: [{ at: 0, requests: 1000, retries: 2000, want: 1000 }],
  },
];

describe('RetryBudget', () => {
  it.each(cases)('$name', ({ percent, steps }) => {
    let now = 0;
    const budget = new RetryBudget(() => now);
    for (const step of steps) {
      now = step.at;
      for (let i = 0; i < (step.requests ?? 0); i++) budget.recordRequest();
      let allowed = 0;
      for (let i = 0; i < (step.retries ?? 0); i++) if (budget.tryRetry(percent)) allowed++;
      if (step.want !== undefined) expect({ at: step.at, allowed }).toStrictEqual({ at: step.at, allowed: step.want });
    }
  });

  it('with the defaults, a target failing everything gets at most about 1.2 tries per client request', () => {
    let now = 0;
    const budget = new RetryBudget(() => now);
    let tries = 0;
    const clientRequests = 50 * 30; // 50 requests/s for 30 s, each wanting 3 retries
    for (let i = 0; i < clientRequests; i++) {
      now = i * 20;
      budget.recordRequest();
      tries++;
      for (let r = 0; r < 3 && budget.tryRetry(20); r++) tries++;
    }
    expect(tries / clientRequests).toBeLessThanOrEqual(1.21);
    expect(tries / clientRequests).toBeGreaterThan(1.15);
  });
});
