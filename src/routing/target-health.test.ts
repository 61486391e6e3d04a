import { describe, expect, it } from 'vitest';
import {
  breakerPolicyOf,
  COOLDOWN_JITTER,
  DEFAULT_BREAKER_POLICY,
  jitteredCooldownMs,
  TargetHealth,
  type Admission,
  type BreakerPolicy,
  type BreakerState,
  type Verdict,
} from './target-health.js';

/** One step of a scenario: move the clock, ask to send, or report a verdict. */
type Step =
  | { at: number; admit: Admission['kind'] | `skip:${string}`; retryInMs?: number }
  | { at: number; record: Verdict; probe?: boolean; /** Admitted before the latest opening. */ early?: boolean }
  | { at: number; state: BreakerState };

const failed: Verdict = { kind: 'failed' };
const answered: Verdict = { kind: 'answered' };
const unknown: Verdict = { kind: 'unknown' };
const policy: BreakerPolicy = { failureThreshold: 3, cooldownMs: 1000, maxCooldownMs: 5000, onAllOpen: 'fail_fast' };

const scenarios: Array<{ name: string; random?: number; steps: Step[] }> = [
  {
    name: 'stays closed below the threshold; a success resets the count',
    steps: [
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 0, record: answered },
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 0, state: 'closed' },
      { at: 0, admit: 'pass' },
    ],
  },
  {
    name: 'opens after threshold consecutive failures; skips until the cooldown ends, then one probe',
    steps: [
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 10, record: failed },
      { at: 10, state: 'open' },
      { at: 500, admit: 'skip:cooling_down', retryInMs: 510 },
      { at: 1009, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 1010, state: 'half_open' },
      { at: 1010, admit: 'probe' },
      { at: 1011, admit: 'skip:probe_in_flight', retryInMs: 0 },
      { at: 1012, state: 'half_open' },
    ],
  },
  {
    name: 'a probe that succeeds closes the breaker and resets the cooldown',
    steps: [
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 1000, admit: 'probe' },
      { at: 1100, record: answered, probe: true },
      { at: 1100, state: 'closed' },
      { at: 1100, admit: 'pass' },
      // The next opening starts from cooldown_ms again.
      { at: 1100, record: failed },
      { at: 1100, record: failed },
      { at: 1100, record: failed },
      { at: 2099, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 2100, admit: 'probe' },
    ],
  },
  {
    name: 'a probe that fails opens again for twice as long, doubling up to max_cooldown_ms',
    steps: [
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 1000, admit: 'probe' },
      { at: 1000, record: failed, probe: true },
      { at: 2999, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 3000, admit: 'probe' },
      { at: 3000, record: failed, probe: true },
      { at: 6999, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 7000, admit: 'probe' },
      { at: 7000, record: failed, probe: true },
      // 8 s nominal, capped at 5 s.
      { at: 11999, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 12000, admit: 'probe' },
    ],
  },
  {
    name: 'a 429/503 with Retry-After opens at once, for exactly that long',
    steps: [
      { at: 0, record: { kind: 'failed', retryAfterMs: 2000 } },
      { at: 0, state: 'open' },
      { at: 1999, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 2000, admit: 'probe' },
    ],
  },
  {
    name: 'Retry-After is capped at max_cooldown_ms',
    steps: [
      { at: 0, record: { kind: 'failed', retryAfterMs: 3_600_000 } },
      { at: 4999, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 5000, admit: 'probe' },
    ],
  },
  {
    name: "a probe's Retry-After sets its next cooldown",
    steps: [
      { at: 0, record: { kind: 'failed', retryAfterMs: 1000 } },
      { at: 1000, admit: 'probe' },
      { at: 1000, record: { kind: 'failed', retryAfterMs: 3000 }, probe: true },
      { at: 3999, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 4000, admit: 'probe' },
    ],
  },
  {
    name: 'a probe that ends without a verdict (client gone) frees the slot for the next request',
    steps: [
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 1000, admit: 'probe' },
      { at: 1000, record: unknown, probe: true },
      { at: 1000, admit: 'probe' },
    ],
  },
  {
    name: 'failures of attempts admitted before the opening do not extend the cooldown',
    steps: [
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 900, record: failed },
      { at: 900, record: failed },
      { at: 1000, admit: 'probe' },
    ],
  },
  {
    name: 'a success of a call sent before the opening does not close it (a Retry-After holds)',
    steps: [
      { at: 0, record: { kind: 'failed', retryAfterMs: 2000 } },
      { at: 5, record: answered, early: true },
      { at: 5, state: 'open' },
      { at: 1999, admit: 'skip:cooling_down', retryInMs: 1 },
    ],
  },
  {
    name: 'any answer while open (a try anyway) closes it',
    steps: [
      { at: 0, record: { kind: 'failed', retryAfterMs: 5000 } },
      { at: 10, record: answered },
      { at: 10, state: 'closed' },
    ],
  },
  {
    name: 'jitter spreads the cooldown (random 0 → -20 %)',
    random: 0,
    steps: [
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 0, record: failed },
      { at: 799, admit: 'skip:cooling_down', retryInMs: 1 },
      { at: 800, admit: 'probe' },
    ],
  },
];

describe('TargetHealth', () => {
  it.each(scenarios)('$name', ({ steps, random }) => {
    let now = 0;
    const health = new TargetHealth(
      () => now,
      () => random ?? 0.5,
    );
    for (const step of steps) {
      now = step.at;
      if ('record' in step) health.record(step.record, step.probe ?? false, policy, step.early ? health.generation() - 1 : health.generation());
      else if ('state' in step) expect({ at: step.at, state: health.state() }).toStrictEqual({ at: step.at, state: step.state });
      else {
        const got = health.admit();
        const kind = got.kind === 'skip' ? `skip:${got.reason}` : got.kind;
        expect({ at: step.at, admit: kind, ...(got.kind === 'skip' ? { retryInMs: got.retryInMs } : {}) }).toStrictEqual({
          at: step.at,
          admit: step.admit,
          ...(step.retryInMs !== undefined ? { retryInMs: step.retryInMs } : {}),
        });
      }
    }
  });

  it('coolingDown: while the cooldown runs and while the probe is out, not when due', () => {
    let now = 0;
    const health = new TargetHealth(() => now, () => 0.5);
    health.record({ kind: 'failed', retryAfterMs: 1000 }, false, policy);
    expect(health.coolingDown()).toBe(true);
    now = 1000;
    expect(health.coolingDown()).toBe(false);
    health.admit();
    expect(health.coolingDown()).toBe(true);
  });
});

describe('jitteredCooldownMs', () => {
  const p = { cooldownMs: 5000, maxCooldownMs: 60_000 };
  it.each([
    { openings: 0, random: 0.5, want: 5000 },
    { openings: 1, random: 0.5, want: 10_000 },
    { openings: 3, random: 0.5, want: 40_000 },
    { openings: 4, random: 0.5, want: 60_000 },
    { openings: 4, random: 0.999, want: 60_000 },
    { openings: 500, random: 0.5, want: 60_000 },
    { openings: 0, random: 0, want: 4000 },
    { openings: 0, random: 0.999_999, want: 6000 },
    { openings: 3, random: 0, want: 32_000 },
  ])('opening $openings, random $random → $want ms', ({ openings, random, want }) => {
    expect(jitteredCooldownMs(openings, p, () => random)).toBe(want);
  });

  it(`stays within ±${COOLDOWN_JITTER * 100} % and never above the maximum`, () => {
    for (let openings = 0; openings < 8; openings++) {
      const nominal = Math.min(60_000, 5000 * 2 ** openings);
      for (const r of [0, 0.1, 0.37, 0.5, 0.81, 0.999_999]) {
        const got = jitteredCooldownMs(openings, p, () => r);
        expect(got).toBeGreaterThanOrEqual(Math.round(nominal * (1 - COOLDOWN_JITTER)));
        expect(got).toBeLessThanOrEqual(Math.min(60_000, Math.round(nominal * (1 + COOLDOWN_JITTER))));
      }
    }
  });
});

describe('breakerPolicyOf', () => {
  it('fills what a config leaves out with the defaults', () => {
    expect(breakerPolicyOf(undefined)).toStrictEqual(DEFAULT_BREAKER_POLICY);
    expect(breakerPolicyOf({ failureThreshold: 2, onAllOpen: 'try' })).toStrictEqual({
      failureThreshold: 2,
      cooldownMs: 5000,
      maxCooldownMs: 60_000,
      onAllOpen: 'try',
    });
  });
});
