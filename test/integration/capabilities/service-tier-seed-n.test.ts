/**
 * `service_tier`, `seed` and `n` (issue 23 row 8; docs/gemini-fields.md): OpenAI's tiers →
 * Gemini's `serviceTier` where the model offers it, the served tier back as `service_tier`
 * (OpenAI's field: strict mode too); `seed` → `generationConfig.seed` (int32 checked); `n` →
 * `candidateCount`, several choices, streamed with their indexes; Gemini 3 takes one candidate.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, NON_STRICT } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const hi = [{ role: 'user', parts: [{ text: 'hi' }] }];
const base = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('service_tier', () => {
  it.each([
    { tier: 'flex', sent: 'flex', served: 'flex' },
    { tier: 'priority', sent: 'priority', served: 'priority' },
    { tier: 'default', sent: 'standard', served: 'default' },
  ] as const)('$tier → serviceTier $sent; the answer says $served, streamed too', async ({ tier, sent, served }) => {
    for (const options of [undefined, NON_STRICT]) {
      h.emulator.reset();
      const out = await h.client.chat.completions.create({ ...base, service_tier: tier }, options);
      expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: hi, serviceTier: sent });
      expect(out.service_tier).toBe(served);
      const chunks = await collect(await h.client.chat.completions.create({ ...base, service_tier: tier, stream: true }, options));
      expect(h.emulator.requests[1]!.body).toStrictEqual({ contents: hi, serviceTier: sent });
      expect(chunks.every((c) => c.service_tier === served)).toBe(true);
    }
  });

  it('auto sends no tier and the answer names none', async () => {
    const out = await h.client.chat.completions.create({ ...base, service_tier: 'auto' });
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: hi });
    expect(out).not.toHaveProperty('service_tier');
  });

  it.each([
    { name: 'a tier Gemini lacks', request: { ...base, service_tier: 'scale' as const }, model: undefined },
    { name: 'flex on a model without tiers', request: { ...base, model: 'gemini-2.0-flash', service_tier: 'flex' as const }, model: 'gemini-2.0-flash' },
  ])('$name → 400 unsupported_parameter, nothing sent', async ({ request, model }) => {
    const err = await apiError(h.client.chat.completions.create(request));
    expect(err.status).toBe(400);
    expect(err.code).toBe('unsupported_parameter');
    expect(err.param).toBe('service_tier');
    if (model) expect(err.message).toContain(model);
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('seed', () => {
  it('→ generationConfig.seed; beyond int32 → 400 naming seed', async () => {
    await h.client.chat.completions.create({ ...base, seed: 1234 });
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: hi, generationConfig: { seed: 1234 } });
    const err = await apiError(h.client.chat.completions.create({ ...base, seed: 2 ** 40 }));
    expect(err.status).toBe(400);
    expect(err.param).toBe('seed');
    expect(h.emulator.requests).toHaveLength(1);
  });
});

describe('n', () => {
  it('→ candidateCount: several choices, each with its index', async () => {
    const out = await h.client.chat.completions.create({ ...base, n: 3 });
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: hi, generationConfig: { candidateCount: 3 } });
    expect(out.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toStrictEqual([
      [0, 'Echo: hi', 'stop'],
      [1, 'Echo: hi', 'stop'],
      [2, 'Echo: hi', 'stop'],
    ]);
  });

  it('streams every choice with its index and finish reason', async () => {
    const chunks = await collect(await h.client.chat.completions.create({ ...base, n: 2, stream: true }));
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: hi, generationConfig: { candidateCount: 2 } });
    for (const index of [0, 1]) {
      const mine = chunks.flatMap((c) => c.choices.filter((ch) => ch.index === index));
      expect(mine.map((ch) => ch.delta.content ?? '').join('')).toBe('Echo: hi');
      expect(mine.at(-1)!.finish_reason).toBe('stop');
    }
  });

  it('n > 1 on Gemini 3 → 400 unsupported_parameter naming the model, nothing sent', async () => {
    const err = await apiError(h.client.chat.completions.create({ ...base, model: 'gemini-3-flash-preview', n: 2 }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('unsupported_parameter');
    expect(err.param).toBe('n');
    expect(err.message).toContain('gemini-3-flash-preview');
    expect(h.emulator.requests).toHaveLength(0);
  });
});
