/**
 * Context caches and cached tokens (issue 23 row 7; docs/gemini-fields.md): `cached_content` →
 * `cachedContent`; `usage.prompt_tokens_details.cached_tokens` from `cachedContentTokenCount` in
 * JSON and streamed usage on the chat, Responses and prompt doors, implicit caching included; the
 * attempt span prices cached tokens at the cached rate; a model without a price gets
 * `gateway.cost.unknown_model` and no cost.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROVIDER_KEY } from '../harness.js';
import { startRoutingHarness, type RoutingHarness } from '../routing/routing-harness.js';
import { apiError, collect } from './helpers.js';

let h: RoutingHarness;
beforeAll(async () => {
  h = await startRoutingHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

/** ~2,500 emulator tokens (ceil(chars/4)): above gemini-2.5-flash's 2,048-token minimum. */
const transcript = 'word '.repeat(2_000);

async function createCache(model = 'gemini-2.5-flash'): Promise<{ name: string; tokens: number }> {
  const res = await fetch(`${h.emulator.url}/v1beta/cachedContents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': PROVIDER_KEY },
    body: JSON.stringify({
      model: `models/${model}`,
      contents: [{ role: 'user', parts: [{ text: transcript }] }],
      systemInstruction: { parts: [{ text: 'You analyse transcripts.' }] },
      ttl: '300s',
    }),
  });
  expect(res.status).toBe(200);
  const cache = (await res.json()) as { name: string; usageMetadata: { totalTokenCount: number } };
  return { name: cache.name, tokens: cache.usageMetadata.totalTokenCount };
}

describe('cached_content', () => {
  it('sends cachedContent; cached_tokens in the usage; the attempt prices them at the cached rate', async () => {
    const cache = await createCache();
    h.emulator.requests.length = 0;
    const { data, response } = await h.client.chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'summarise' }], cached_content: cache.name } as never)
      .withResponse();
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: [{ role: 'user', parts: [{ text: 'summarise' }] }], cachedContent: cache.name });
    // The prompt is "summarise" (3 tokens) plus the cache; the answer "Echo: summarise" is 4 tokens.
    expect(data.usage).toStrictEqual({
      prompt_tokens: 3 + cache.tokens,
      completion_tokens: 4,
      total_tokens: 3 + cache.tokens + 4,
      prompt_tokens_details: { cached_tokens: cache.tokens },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    const [attempt] = h.attempts(response.headers.get('traceparent'));
    // gemini-2.5-flash: $0.30 uncached input, $0.03 cached input, $2.50 output, per 1M tokens.
    expect(attempt!.attributes['gateway.cost.usd']).toBeCloseTo((3 * 0.3 + cache.tokens * 0.03 + 4 * 2.5) / 1e6, 12);
    expect(attempt!.attributes['gateway.cost.unknown_model']).toBeUndefined();

    const chunks = await collect(
      await h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'summarise' }],
        cached_content: cache.name,
        stream: true,
        stream_options: { include_usage: true },
      } as never),
    );
    expect(h.emulator.requests[1]!.body).toStrictEqual(h.emulator.requests[0]!.body);
    expect(chunks.at(-1)!.usage?.prompt_tokens_details?.cached_tokens).toBe(cache.tokens);
  });

  it('Gemini refuses a system instruction or tools next to a cache: a 400 naming cached_content, nothing sent', async () => {
    const err = await apiError(
      h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'summarise' },
        ],
        cached_content: 'cachedContents/abc',
      } as never),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe('cached_content');
    expect(h.emulator.requests).toHaveLength(0);
  });

  it("an unknown cache → Google's refusal relayed", async () => {
    const err = await apiError(
      h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], cached_content: 'cachedContents/nope' } as never),
    );
    expect(err.message).toContain('CachedContent not found');
    expect(h.emulator.requests).toHaveLength(1);
  });

  it('a malformed cache name → 400 naming cached_content', async () => {
    const err = await apiError(
      h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], cached_content: 'abc' } as never),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe('cached_content');
  });
});

/** An answer with implicit caching: cachedContentTokenCount without any cachedContent in the request. */
const implicit = {
  candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 3000, cachedContentTokenCount: 2048, candidatesTokenCount: 1, totalTokenCount: 3001 },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'r1',
};

describe('implicit caching on every door', () => {
  it('chat, streamed and not', async () => {
    h.emulator.enqueue({ status: 200, body: implicit });
    const out = await h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] });
    expect(out.usage?.prompt_tokens_details?.cached_tokens).toBe(2048);
    h.emulator.enqueue({ chunks: [{ data: implicit }] });
    const chunks = await collect(
      await h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], stream: true, stream_options: { include_usage: true } }),
    );
    expect(chunks.at(-1)!.usage?.prompt_tokens_details?.cached_tokens).toBe(2048);
  });

  it('Responses, streamed and not', async () => {
    h.emulator.enqueue({ status: 200, body: implicit });
    const out = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'x', store: false });
    expect(out.usage?.input_tokens_details.cached_tokens).toBe(2048);
    h.emulator.enqueue({ chunks: [{ data: implicit }] });
    const events = await collect(await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'x', store: false, stream: true }));
    const done = (events as unknown as Array<{ type: string; response?: { usage?: { input_tokens_details: { cached_tokens: number } } } }>).find(
      (e) => e.type === 'response.completed',
    );
    expect(done!.response!.usage!.input_tokens_details.cached_tokens).toBe(2048);
  });
});

describe('cost of a model the price table does not know', () => {
  it('no gateway.cost.usd, gateway.cost.unknown_model true', async () => {
    const { response } = await h.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    const [attempt] = h.attempts(response.headers.get('traceparent'));
    expect(attempt!.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(attempt!.attributes['gateway.cost.usd']).toBeUndefined();
    expect(attempt!.attributes['gateway.cost.unknown_model']).toBe(true);
  });
});
