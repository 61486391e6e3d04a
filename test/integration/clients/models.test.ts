/**
 * `GET /v1/models[/{id}]` through the official `openai` SDK: the emulator's model list in
 * OpenAI's shape, the alias table, caching, and errors.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../../src/emulator/index.js';
import { startGateway } from '../../../src/gateway/start-gateway.js';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

describe('GET /v1/models', () => {
  it('lists chat and embedding models in OpenAI shape, from one cached upstream call', async () => {
    const models = [];
    for await (const m of h.client.models.list()) models.push(m);
    expect(models).toContainEqual({ id: 'gemini-2.5-flash', object: 'model', created: 0, owned_by: 'google' });
    expect(models.map((m) => m.id)).toContain('gemini-embedding-001');
    expect(models.map((m) => m.id)).toContain('gemini-flash-latest');
    const again = await h.client.models.list();
    expect(again.data).toHaveLength(models.length);
    const listCalls = h.emulator.requests.filter((r) => r.path.startsWith('/v1beta/models?'));
    expect(listCalls).toHaveLength(1);
    expect(listCalls[0]!.headers['x-goog-api-key']).toBe('test-provider-key-123');
  });

  it('retrieves one model, and 404s an unknown one as OpenAI does', async () => {
    expect(await h.client.models.retrieve('gemini-2.5-flash')).toStrictEqual({ id: 'gemini-2.5-flash', object: 'model', created: 0, owned_by: 'google' });
    const err = await h.client.models.retrieve('gpt-nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).error).toStrictEqual({
      message: "The model 'gpt-nope' does not exist",
      type: 'invalid_request_error',
      param: 'model',
      code: 'model_not_found',
    });
  });

  it('relays an upstream key error without caching it, and never shows the key', async () => {
    const emulator = await startEmulator({ apiKeys: [PROVIDER_KEY] });
    const gateway = await startGateway({ port: 0, geminiBaseUrl: emulator.url, apiKeys: [GATEWAY_KEY] }, { log: () => {} });
    try {
      const client = (apiKey: string) =>
        new OpenAI({
          baseURL: `${gateway.url}/v1`,
          apiKey,
          defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google' },
          maxRetries: 0,
        });
      const err = await client('some-other-provider-key-xyz').models.list().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as InstanceType<typeof OpenAI.APIError>).message).toContain('API key not valid');
      expect(JSON.stringify((err as InstanceType<typeof OpenAI.APIError>).error)).not.toContain('some-other-provider-key-xyz');
      // The failure was not cached: the right key lists at once.
      expect((await client(PROVIDER_KEY).models.list()).data.length).toBeGreaterThan(0);
    } finally {
      await gateway.close();
      await emulator.close();
    }
  });

  it('needs the gateway key and a provider credential', async () => {
    const noKey = await fetch(`${h.gateway.url}/v1/models`);
    expect(noKey.status).toBe(401);
    const noProvider = await fetch(`${h.gateway.url}/v1/models`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } });
    expect(noProvider.status).toBeGreaterThanOrEqual(400);
    expect(noProvider.status).toBeLessThan(500);
  });
});
