/**
 * Issue 16: `POST /v1/files` with `x-gateway-provider: openai` sent the OpenAI key to a Gemini
 * upload path (502). Files are Gemini's: any other provider is a 400 naming
 * `x-gateway-provider`, and nothing is sent upstream. Through the gateway's own credential
 * resolution (headers, virtual keys), the emulator counting every request it got.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function upload(headers: Record<string, string>) {
  const form = new FormData();
  form.append('purpose', 'user_data');
  form.append('file', new Blob([Buffer.from('hello')], { type: 'text/plain' }), 'hello.txt');
  return fetch(`${h.gateway.url}/v1/files`, { method: 'POST', headers: { 'x-gateway-api-key': GATEWAY_KEY, ...headers }, body: form });
}

describe('files are Gemini’s', () => {
  it.each([
    { name: 'upload', send: (headers: Record<string, string>) => upload(headers) },
    {
      name: 'read back',
      send: (headers: Record<string, string>) => fetch(`${h.gateway.url}/v1/files/abc123`, { headers: { 'x-gateway-api-key': GATEWAY_KEY, ...headers } }),
    },
  ])('$name with x-gateway-provider: openai is a 400 and nothing goes upstream', async ({ send }) => {
    const before = h.emulator.requests.length;
    const res = await send({ 'x-gateway-provider': 'openai', authorization: 'Bearer test-openai-key-456' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { param: string; type: string; message: string } };
    expect(body.error).toMatchObject({ param: 'x-gateway-provider', type: 'invalid_request_error' });
    expect(body.error.message).not.toContain('test-openai-key-456');
    expect(h.emulator.requests.length).toBe(before);
  });

  it('google still uploads', async () => {
    const res = await upload({ 'x-gateway-provider': 'google', authorization: `Bearer ${PROVIDER_KEY}` });
    expect(res.status).toBe(200);
  });
});
