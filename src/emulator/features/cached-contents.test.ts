import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../index.js';
import { KEY, post } from '../test-helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

const big = { role: 'user', parts: [{ text: 'word '.repeat(2_000) }] }; // 2,500 tokens
const call = (path: string, method: string, body?: unknown) =>
  fetch(`${emu.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-goog-api-key': KEY },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

describe('cachedContents (gemini-more-fields §8)', () => {
  it('create, get, list, patch, delete; contents are never returned', async () => {
    const created = await post(`${emu.url}/v1beta/cachedContents`, { model: 'models/gemini-2.5-flash', displayName: 'd', contents: [big], ttl: '60s' });
    expect(created.status).toBe(200);
    const cache = (await created.json()) as Record<string, unknown>;
    expect(cache).toMatchObject({ model: 'models/gemini-2.5-flash', displayName: 'd', usageMetadata: { totalTokenCount: 2500 } });
    expect(cache).not.toHaveProperty('contents');
    const name = cache.name as string;
    expect(name).toMatch(/^cachedContents\/[a-z0-9]+$/);
    expect(((await (await call(`/v1beta/${name}`, 'GET')).json()) as { name: string }).name).toBe(name);
    expect(((await (await call('/v1beta/cachedContents', 'GET')).json()) as { cachedContents: unknown[] }).cachedContents).toHaveLength(1);
    const patched = (await (await call(`/v1beta/${name}`, 'PATCH', { ttl: '7200s' })).json()) as { expireTime: string };
    expect(Date.parse(patched.expireTime) - Date.now()).toBeGreaterThan(7_000_000);
    expect((await call(`/v1beta/${name}`, 'DELETE')).status).toBe(200);
    expect((await call(`/v1beta/${name}`, 'GET')).status).toBe(403);
  });

  it('refuses a cache below the minimum, an unknown model, and a bad ttl', async () => {
    const small = await post(`${emu.url}/v1beta/cachedContents`, { model: 'models/gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
    expect(small.status).toBe(400);
    expect(((await small.json()) as { error: { message: string } }).error.message).toBe('Cached content is too small. total_token_count=1, min_total_token_count=2048');
    expect((await post(`${emu.url}/v1beta/cachedContents`, { model: 'models/nope', contents: [big] })).status).toBe(404);
    expect((await post(`${emu.url}/v1beta/cachedContents`, { model: 'models/gemini-2.5-flash', contents: [big], ttl: 'soon' })).status).toBe(400);
  });

  it('generateContent with cachedContent: usage counts the cache; model, system instruction and tools are checked', async () => {
    const { name } = (await (await post(`${emu.url}/v1beta/cachedContents`, { model: 'models/gemini-2.5-flash', contents: [big] })).json()) as { name: string };
    const ask = (model: string, extra: Record<string, unknown> = {}) =>
      post(`${emu.url}/v1beta/models/${model}:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], cachedContent: name, ...extra });
    const ok = (await (await ask('gemini-2.5-flash')).json()) as { usageMetadata: Record<string, unknown> };
    expect(ok.usageMetadata).toMatchObject({ promptTokenCount: 2501, cachedContentTokenCount: 2500, cacheTokensDetails: [{ modality: 'TEXT', tokenCount: 2500 }] });
    const withSystem = await ask('gemini-2.5-flash', { systemInstruction: { parts: [{ text: 's' }] } });
    expect(withSystem.status).toBe(400);
    expect(((await withSystem.json()) as { error: { message: string } }).error.message).toContain('should not be set in the request when using cached content');
    expect((await ask('gemini-2.5-pro')).status).toBe(400);
    const missing = await post(`${emu.url}/v1beta/models/gemini-2.5-flash:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], cachedContent: 'cachedContents/none' });
    expect(missing.status).toBe(403);
  });
});
