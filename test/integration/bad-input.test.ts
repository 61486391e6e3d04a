/**
 * Zero 5xx for bad input: hundreds of mangled requests (wrong types, unknown fields, odd nesting,
 * broken encodings, hostile headers), each answered with a 4xx OpenAI envelope, never a 5xx, with
 * the gateway still serving afterwards and nothing reaching upstream that failed validation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postChat, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Deterministic pseudo-random numbers (mulberry32), so a failure is reproducible. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const valid = {
  model: 'gemini-2.5-flash',
  messages: [
    { role: 'system', content: 'Be terse.' },
    { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call-1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'call-1', content: '{"ok":true}' },
  ],
  tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
  temperature: 0.5,
  max_tokens: 10,
  stop: ['x'],
  response_format: { type: 'json_object' },
};

const weird: unknown[] = [null, true, -1, 1e308, 0.5, '', 'x'.repeat(300), [], [null], {}, { a: { b: { c: [] } } }, '\u0000', 'data:', NaN];

function mutate(value: unknown, random: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  if (depth > 0 && random() < 0.15) return pick(weird);
  if (Array.isArray(value)) {
    const copy = value.map((v) => mutate(v, random, depth + 1));
    if (random() < 0.2) copy.push(pick(weird));
    if (random() < 0.1) copy.length = 0;
    return copy;
  }
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (random() < 0.08) continue; // drop a field
      copy[random() < 0.03 ? `${k}_` : k] = mutate(v, random, depth + 1);
    }
    if (random() < 0.1) copy[pick(['extra', 'n', 'stream', 'role', 'type', 'thinking', 'modalities'])] = pick(weird);
    return copy;
  }
  return random() < 0.1 ? pick(weird) : value;
}

describe('bad input', () => {
  it('never gets a 5xx across 400 mangled requests', async () => {
    const random = rng(20261121);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 400; i++) {
      // Every tenth request is the valid one, so the gateway is shown serving between the bad ones.
      const body = i % 10 === 0 ? valid : mutate(valid, random);
      const res = await postChat(h, body);
      const text = await res.text();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status >= 500) throw new Error(`5xx for ${JSON.stringify(body).slice(0, 400)}: ${text.slice(0, 300)}`);
      if (res.status >= 400) expect(JSON.parse(text)).toHaveProperty('error.message');
    }
    // The mutations must actually exercise the error path, and some must still be valid.
    expect([...statuses.keys()].some((s) => s >= 400)).toBe(true);
    expect(statuses.get(200) ?? 0).toBeGreaterThanOrEqual(40);
  });

  it.each([
    { name: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]) },
    { name: 'a JSON array', body: '[1,2,3]' },
    { name: 'a JSON string', body: '"hello"' },
    { name: 'deep nesting', body: `${'['.repeat(5000)}${']'.repeat(5000)}` },
    { name: 'a huge number of messages', body: JSON.stringify({ model: 'm', messages: Array.from({ length: 20000 }, () => ({ role: 'user', content: 'x' })).concat([{ role: 'robot' } as never]) }) },
  ])('answers $name with a 4xx', async ({ body }) => {
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, { method: 'POST', headers: h.headers, body });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it.each<{ name: string; headers: Record<string, string> }>([
    { name: 'metadata that is not JSON', headers: { 'x-gateway-metadata': '{nope' } },
    { name: 'a config that is not JSON', headers: { 'x-gateway-config': '{"strategy":' } },
    { name: 'an unknown provider', headers: { 'x-gateway-provider': 'acme' } },
    { name: 'a malformed traceparent (ignored)', headers: { traceparent: '00-zz-yy-01' } },
    { name: 'a huge baggage', headers: { baggage: `k=${'v'.repeat(9000)}` } },
  ])('answers $name without a 5xx', async ({ headers }) => {
    const res = await postChat(h, { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { ...h.headers, ...headers });
    expect(res.status).toBeLessThan(500);
  });

  it('is still serving', async () => {
    expect((await postChat(h, { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  });
});
