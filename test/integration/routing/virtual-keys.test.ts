/**
 * Virtual keys through real HTTP: the admin API stores a provider key once, clients then say
 * `@slug` (or `x-gateway-virtual-key`) through the official `openai` SDK, and the key only ever
 * leaves toward its provider: never in an answer, a listing, or a span.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GATEWAY_KEY, startHarness } from '../harness.js';
import { UPSTREAM_TEXT } from './openai-upstream.js';
import { ADMIN_KEY, config, startRoutingHarness, type RoutingHarness } from './routing-harness.js';

// Obviously fake credentials, long enough to show a key hint.
const GEMINI_VK_SECRET = 'test-vk-gemini-secret-0000-abcd';
const OPENAI_VK_SECRET = 'test-vk-openai-secret-1111-wxyz';

let h: RoutingHarness;
beforeAll(async () => {
  h = await startRoutingHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

/** `key: null` sends no key at all. */
const admin = (method: string, path: string, body?: unknown, key: string | null = ADMIN_KEY) =>
  fetch(`${h.gateway.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(key !== null ? { 'x-gateway-api-key': key } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

/** A client that holds no provider key at all. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

const keyless = () =>
  new OpenAI({
    baseURL: `${h.gateway.url}/v1`,
    apiKey: 'unused-by-virtual-keys',
    defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY },
    maxRetries: 0,
  });

describe('virtual keys', () => {
  it('admin adds, lists (never the secret), clients use @slug and the override, admin deletes', async () => {
    const added = await admin('POST', '/v1/virtual-keys', { slug: 'gem', provider: 'google', api_key: GEMINI_VK_SECRET });
    expect(added.status).toBe(201);
    const addedText = await added.text();
    expect(addedText).not.toContain(GEMINI_VK_SECRET);
    expect(JSON.parse(addedText)).toMatchObject({ object: 'virtual_key', slug: 'gem', provider: 'google', key_hint: '…abcd' });
    expect(
      (await admin('POST', '/v1/virtual-keys', { slug: 'oai', provider: 'openai', api_key: OPENAI_VK_SECRET, custom_host: h.upstream.url })).status,
    ).toBe(201);

    const listed = await admin('GET', '/v1/virtual-keys');
    const listText = await listed.text();
    expect(listed.status).toBe(200);
    expect(listText).not.toContain(GEMINI_VK_SECRET);
    expect(listText).not.toContain(OPENAI_VK_SECRET);
    expect((JSON.parse(listText) as { data: Array<{ slug: string }> }).data.map((k) => k.slug)).toStrictEqual(['gem', 'oai']);

    // @slug: the stored key goes to Gemini; the client's own Authorization is not used.
    const client = keyless();
    const { data, response } = await client.chat.completions
      .create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-gateway-provider': '@gem' } })
      .withResponse();
    expect(data.choices[0]!.message.content).toBeTruthy();
    expect(h.emulator.requests[0]!.headers['x-goog-api-key']).toBe(GEMINI_VK_SECRET);
    expect(JSON.stringify(response.headers)).not.toContain(GEMINI_VK_SECRET);

    // x-gateway-virtual-key overrides @slug for one call: another provider, the key's own host.
    const over = await client.chat.completions.create(
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-gateway-provider': '@gem', 'x-gateway-virtual-key': 'oai' } },
    );
    expect(over.choices[0]!.message.content).toBe(UPSTREAM_TEXT);
    expect(h.upstream.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_VK_SECRET}`);

    // In a config, through the portkey-ai spelling of the header.
    const viaConfig = await client.chat.completions.create(
      { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-portkey-config': JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ virtual_key: 'gem' }] }) } },
    );
    expect(viaConfig.choices[0]!.message.content).toBeTruthy();

    // No span holds a secret.
    const everything = JSON.stringify(h.exporter.getFinishedSpans().map((s) => s.attributes));
    expect(everything).not.toContain(GEMINI_VK_SECRET);
    expect(everything).not.toContain(OPENAI_VK_SECRET);

    expect((await admin('DELETE', '/v1/virtual-keys/gem')).status).toBe(200);
    expect((await admin('DELETE', '/v1/virtual-keys/gem')).status).toBe(404);
    const gone = await failure(
      client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-gateway-provider': '@gem' } }),
    );
    expect(gone).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(gone.message).toContain('@gem');
    await admin('DELETE', '/v1/virtual-keys/oai');
  });

  it('an unknown slug is a 401 naming it, and nothing goes upstream', async () => {
    const err = await failure(
      keyless().chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-gateway-provider': '@nope' } }),
    );
    expect(err.status).toBe(401);
    expect(err.message).toContain('unknown virtual key @nope');
    expect(err.code).toBe('unknown_virtual_key');
    const inConfig = await failure(
      h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }, { headers: config({ virtual_key: 'ghost' }) }),
    );
    expect([inConfig.status, inConfig.param]).toStrictEqual([401, 'config.virtual_key']);
    expect(h.emulator.requests).toHaveLength(0);
  });

  it.each([
    { name: 'no key', key: null, status: 401 },
    { name: 'the gateway key', key: GATEWAY_KEY, status: 401 },
    { name: 'a wrong key', key: 'not-the-admin-key-at-all', status: 401 },
  ])('admin routes refuse $name', async ({ key, status }) => {
    expect((await admin('GET', '/v1/virtual-keys', undefined, key)).status).toBe(status);
    expect((await admin('POST', '/v1/virtual-keys', { slug: 'x', provider: 'google', api_key: 'k' }, key)).status).toBe(status);
  });

  it('takes the admin key as Authorization: Bearer too, and validates input with param', async () => {
    const res = await fetch(`${h.gateway.url}/v1/virtual-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_KEY}` },
      body: JSON.stringify({ slug: 'bad slug', provider: 'google', api_key: 'k' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('slug');
  });

  it('admin routes answer 404 when SIDEGATE_ADMIN_KEY is unset', async () => {
    const off = await startHarness({ adminKey: undefined, dataDir: `${h.gateway.settings.dataDir}/off` });
    try {
      const res = await fetch(`${off.gateway.url}/v1/virtual-keys`, { headers: { 'x-gateway-api-key': ADMIN_KEY } });
      expect(res.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
