/**
 * `POST/GET /v1/cached_contents`, `GET/DELETE /v1/cached_contents/{id}` (issue 23 row 7): a
 * Gemini context cache made from OpenAI-format messages and tools through the official `openai`
 * SDK's raw methods, the exact `cachedContents` request the emulator got, and the cache used
 * by a chat call as `cached_content`.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

interface Cache {
  id: string;
  object: string;
  model: string;
  display_name?: string;
  created_at: number;
  expires_at: number;
  usage: { total_tokens: number };
}

const transcript = 'word '.repeat(2_000);
const create = {
  model: 'gemini-2.5-flash',
  display_name: 'a11 transcript',
  ttl: 300,
  messages: [
    { role: 'system', content: 'You analyse transcripts.' },
    { role: 'user', content: transcript },
  ],
  tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
};

describe('/v1/cached_contents', () => {
  it('creates a cache from OpenAI messages and tools; a chat call uses it; get, list, delete', async () => {
    const before = Math.floor(Date.now() / 1000);
    const cache = await h.client.post<Cache>('/cached_contents', { body: create });
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/cachedContents');
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      model: 'models/gemini-2.5-flash',
      displayName: 'a11 transcript',
      contents: [{ role: 'user', parts: [{ text: transcript }] }],
      systemInstruction: { parts: [{ text: 'You analyse transcripts.' }] },
      tools: [{ functionDeclarations: [{ name: 'lookup', parametersJsonSchema: { type: 'object', properties: {} } }] }],
      ttl: '300s',
    });
    expect(cache).toMatchObject({ object: 'cached_content', model: 'gemini-2.5-flash', display_name: 'a11 transcript' });
    expect(cache.id).toMatch(/^cachedContents\//);
    expect(cache.expires_at - before).toBeGreaterThanOrEqual(299);
    expect(cache.usage.total_tokens).toBeGreaterThan(2_048);

    const answer = await h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'summarise' }], cached_content: cache.id } as never);
    expect(h.emulator.requests[1]!.body).toStrictEqual({ contents: [{ role: 'user', parts: [{ text: 'summarise' }] }], cachedContent: cache.id });
    expect(answer.usage?.prompt_tokens_details?.cached_tokens).toBe(cache.usage.total_tokens);

    expect(await h.client.get<Cache>(`/cached_contents/${cache.id.split('/')[1]}`)).toStrictEqual(cache);
    const list = await h.client.get<{ object: string; data: Cache[] }>('/cached_contents');
    expect(list).toStrictEqual({ object: 'list', data: [cache] });
    expect(await h.client.delete(`/cached_contents/${cache.id.split('/')[1]}`)).toStrictEqual({ id: cache.id, object: 'cached_content.deleted', deleted: true });
    expect(h.emulator.requests.map((r) => `${r.method} ${r.path}`).slice(2)).toStrictEqual([
      `GET /v1beta/${cache.id}`,
      'GET /v1beta/cachedContents',
      `DELETE /v1beta/${cache.id}`,
    ]);
    const gone = await apiError(h.client.get(`/cached_contents/${cache.id.split('/')[1]}`));
    expect(gone.message).toContain('CachedContent not found');
  });

  it("relays Google's refusal of a cache below the model's minimum", async () => {
    const err = await apiError(h.client.post('/cached_contents', { body: { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'short' }] } }));
    expect(err.status).toBe(400);
    expect(err.message).toContain('Cached content is too small');
  });

  it.each([
    { name: 'a bad ttl', body: { ...create, ttl: 'soon' }, param: 'ttl' },
    { name: 'an unknown field', body: { ...create, temperature: 1 }, param: 'temperature' },
    { name: 'no messages', body: { model: 'gemini-2.5-flash' }, param: 'messages' },
  ])('$name → 400 naming it, nothing sent', async ({ body, param }) => {
    const err = await apiError(h.client.post('/cached_contents', { body }));
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
    expect(h.emulator.requests).toHaveLength(0);
  });

  it('another provider → 400 naming x-gateway-provider', async () => {
    const client = new OpenAI({ baseURL: h.client.baseURL, apiKey: 'k', defaultHeaders: { 'x-gateway-api-key': 'test-gateway-key', 'x-gateway-provider': 'openai' }, maxRetries: 0 });
    const err = await apiError(client.post('/cached_contents', { body: create }));
    expect(err.status).toBe(400);
    expect(err.param).toBe('x-gateway-provider');
  });
});
