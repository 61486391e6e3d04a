import { describe, expect, it } from 'vitest';
import { DEFAULT_BREAKER_POLICY } from './target-health.js';
import { TargetHealthRegistry } from './target-health-registry.js';

// Obviously fake credentials.
const target = (apiKey = 'test-key-a', model = 'gemini-2.5-flash') => ({ providerName: 'gcp.gemini', baseUrl: 'http://127.0.0.1:1', model, apiKey });
const registry = (maxTargets?: number) =>
  new TargetHealthRegistry({ circuitBreaker: true, retryBudgetPercent: 20, clock: () => 0, random: () => 0.5, ...(maxTargets ? { maxTargets } : {}) });
const open = (r: TargetHealthRegistry, t: ReturnType<typeof target>) =>
  r.entry(t).health.record({ kind: 'failed', retryAfterMs: 1000 }, false, DEFAULT_BREAKER_POLICY);

describe('TargetHealthRegistry', () => {
  it('one entry per provider, base URL, model and credential; the credential only as a salted hash', () => {
    const r = registry();
    expect(r.entry(target())).toBe(r.entry(target()));
    expect(r.entry(target('test-key-b'))).not.toBe(r.entry(target()));
    expect(r.entry(target(undefined, 'gemini-2.5-pro'))).not.toBe(r.entry(target()));
    const id = r.entry(target()).credentialId;
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify([...r.readings()])).not.toContain('test-key-a');
    // Salted per process: another registry names the same key differently.
    expect(registry().entry(target()).credentialId).not.toBe(id);
  });

  it('anyOpen follows the breakers, and is false with breaking off', () => {
    const r = registry();
    r.entry(target());
    expect(r.anyOpen()).toBe(false);
    open(r, target());
    expect(r.anyOpen()).toBe(true);
    r.entry(target()).health.record({ kind: 'answered' }, false, DEFAULT_BREAKER_POLICY);
    expect(r.anyOpen()).toBe(false);
    const off = new TargetHealthRegistry({ circuitBreaker: false, retryBudgetPercent: 20 });
    open(off, target());
    expect(off.anyOpen()).toBe(false);
  });

  it('readings: every target and its state, for the gauge', () => {
    const r = registry();
    r.entry(target('test-key-a'));
    open(r, target('test-key-b'));
    expect([...r.readings()].map((t) => [t.model, t.state])).toStrictEqual([
      ['gemini-2.5-flash', 'closed'],
      ['gemini-2.5-flash', 'open'],
    ]);
  });

  it('is bounded: past maxTargets the oldest closed target is forgotten first', () => {
    const r = registry(2);
    open(r, target('test-key-a'));
    r.entry(target('test-key-b'));
    r.entry(target('test-key-c'));
    expect([...r.readings()].map((t) => t.state)).toStrictEqual(['open', 'closed']);
    expect([...r.readings()]).toHaveLength(2);
  });
});
