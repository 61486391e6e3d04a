/**
 * Every failure answers with the OpenAI error envelope and the right status; nothing crashes the
 * process; the provider key never shows up in an answer.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/start-gateway.js';
import { GATEWAY_KEY, PROVIDER_KEY, postChat, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  // How each upstream failure maps to an answer, one after another against one target: its
  // circuit breaker would (rightly) answer the later ones 503 at once (test/integration/routing/target-health.test.ts).
  h = await startHarness({ maxBodyBytes: 64 * 1024, upstreamTimeoutMs: 400, circuitBreaker: false });
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const simple = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] };

async function expectEnvelope(res: Response, status: number) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body.error).sort()).toStrictEqual(['code', 'message', 'param', 'type']);
  expect(typeof body.error.message).toBe('string');
  expect(JSON.stringify(body)).not.toContain(PROVIDER_KEY);
  expect(JSON.stringify(body)).not.toContain(GATEWAY_KEY);
  return body.error;
}

describe('Gemini error bodies keep their status and message', () => {
  it.each([
    { status: 400, google: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received.', type: 'invalid_request_error' },
    { status: 401, google: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.', type: 'authentication_error' },
    { status: 403, google: 'PERMISSION_DENIED', message: 'Method doesn\'t allow unregistered callers.', type: 'permission_error' },
    { status: 404, google: 'NOT_FOUND', message: 'models/nope is not found for API version v1beta.', type: 'not_found_error' },
    { status: 429, google: 'RESOURCE_EXHAUSTED', message: 'You exceeded your current quota.', type: 'rate_limit_error', retryAfter: '7' },
    { status: 500, google: 'INTERNAL', message: 'An internal error has occurred.', type: 'api_error' },
    { status: 503, google: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.', type: 'api_error', retryAfter: '3' },
    { status: 504, google: 'DEADLINE_EXCEEDED', message: 'Deadline exceeded.', type: 'timeout_error' },
  ])('$status $google', async ({ status, google, message, type, retryAfter }) => {
    h.emulator.enqueue({
      status,
      body: { error: { code: status, message, status: google } },
      ...(retryAfter ? { headers: { 'retry-after': retryAfter } } : {}),
    });
    const res = await postChat(h, simple);
    const error = await expectEnvelope(res, status);
    expect(error.message).toBe(message);
    expect(error.type).toBe(type);
    expect(res.headers.get('retry-after')).toBe(retryAfter ?? null);
  });

  it('takes the retry delay from RetryInfo when there is no Retry-After header', async () => {
    h.emulator.enqueue({
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'You exceeded your current quota.',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '59s' }],
        },
      },
    });
    const res = await postChat(h, simple);
    await expectEnvelope(res, 429);
    expect(res.headers.get('retry-after')).toBe('59');
  });

  it('passes an error status before a stream starts through as that status', async () => {
    h.emulator.enqueue({ status: 429, body: { error: { code: 429, message: 'Quota.', status: 'RESOURCE_EXHAUSTED' } } });
    const res = await postChat(h, { ...simple, stream: true });
    const error = await expectEnvelope(res, 429);
    expect(error.message).toBe('Quota.');
  });
});

describe('bad input never reaches upstream', () => {
  it('malformed JSON → 400', async () => {
    const error = await expectEnvelope(await postChat(h, '{"model": '), 400);
    expect(error.type).toBe('invalid_request_error');
  });

  it('schema violation → 400 naming the param', async () => {
    const error = await expectEnvelope(await postChat(h, { ...simple, messages: [{ role: 'user', content: 42 }] }), 400);
    expect(error.param).toBe('messages[0].content');
  });

  it('unknown parameter → 400 naming it', async () => {
    const error = await expectEnvelope(await postChat(h, { ...simple, temprature: 1 }), 400);
    expect(error.param).toBe('temprature');
  });

  it('body over the limit → 413', async () => {
    const big = { ...simple, messages: [{ role: 'user', content: 'x'.repeat(70 * 1024) }] };
    await expectEnvelope(await postChat(h, big), 413);
  });

  it('unknown route → 404', async () => {
    const res = await fetch(`${h.gateway.url}/v1/nope`, { headers: h.headers });
    await expectEnvelope(res, 404);
  });

  it('missing or wrong gateway key → 401', async () => {
    const { ['x-gateway-api-key']: _omit, ...noKey } = h.headers;
    await expectEnvelope(await postChat(h, simple, noKey), 401);
    await expectEnvelope(await postChat(h, simple, { ...h.headers, 'x-gateway-api-key': 'wrong' }), 401);
  });

  it('missing provider key → 401, missing provider → 400', async () => {
    const { authorization: _a, ...noAuth } = h.headers;
    await expectEnvelope(await postChat(h, simple, noAuth), 401);
    const { ['x-gateway-provider']: _p, ...noProvider } = h.headers;
    const error = await expectEnvelope(await postChat(h, simple, noProvider), 400);
    expect(error.param).toBe('x-gateway-provider');
  });

  it('none of these reached the emulator', async () => {
    await postChat(h, '{');
    await postChat(h, { ...simple, temperature: 9 });
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('upstream transport failures', () => {
  it('upstream connection dropped → 502', async () => {
    h.emulator.enqueue({ drop: true });
    const error = await expectEnvelope(await postChat(h, simple), 502);
    expect(error.type).toBe('api_error');
  });

  it('upstream timeout → 504', async () => {
    h.emulator.enqueue({ delayMs: 3000 });
    const error = await expectEnvelope(await postChat(h, simple), 504);
    expect(error.type).toBe('timeout_error');
  });

  it('upstream unreachable → 502', async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const gw = await startGateway({ port: 0, geminiBaseUrl: `http://127.0.0.1:${port}`, apiKeys: [GATEWAY_KEY] }, { log: () => {} });
    try {
      const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: h.headers, body: JSON.stringify(simple) });
      await expectEnvelope(res, 502);
    } finally {
      await gw.close();
    }
  });
});

describe('client disconnects', () => {
  it.each([false, true])('abort the upstream call (stream: %s)', async (stream) => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    let arrived!: () => void;
    const received = new Promise<void>((r) => (arrived = r));
    // An upstream that never answers, and tells us when its caller hangs up.
    const upstream = createServer((req: IncomingMessage) => {
      arrived();
      req.socket.once('close', () => upstreamClosed());
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const gw = await startGateway(
      { port: 0, geminiBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, apiKeys: [GATEWAY_KEY] },
      { log: () => {} },
    );
    try {
      const controller = new AbortController();
      const pending = fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: h.headers,
        body: JSON.stringify({ ...simple, stream }),
        signal: controller.signal,
      }).catch(() => 'aborted');
      await received;
      controller.abort();
      expect(await pending).toBe('aborted');
      await closed; // resolves only if the gateway hung up on upstream
    } finally {
      await gw.close();
      upstream.closeAllConnections();
      await new Promise<void>((r) => upstream.close(() => r()));
    }
  });
});

describe('the process survives', () => {
  it('still answers after all of the above', async () => {
    const res = await fetch(`${h.gateway.url}/healthz`);
    expect(res.status).toBe(200);
  });
});
