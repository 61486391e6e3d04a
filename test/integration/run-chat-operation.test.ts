/**
 * The shared chat operation as another front door uses it (DESIGN Decision 17): a door with its
 * own shapes (named SSE events, no `[DONE]`, a wrapped JSON body, an extra span attribute) gets
 * routing, attempt spans, response headers and client-abort handling from `runChatOperation`.
 * Real HTTP, the Gemini emulator upstream, the real OTel SDK exporting into memory.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRoutingConfigStore } from '../../src/config/routing-config.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { sendError } from '../../src/server/respond.js';
import { parseChatRequest } from '../../src/openai/parse-chat-request.js';
import { createGeminiProvider } from '../../src/providers/gemini/gemini-provider.js';
import { createContextPropagator, readRequestContext } from '../../src/server/request-context.js';
import { runChatOperation, type ChatResponseAdapter } from '../../src/server/run-chat-operation.js';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { SpanIdRegistry } from '../../src/telemetry/span-id-registry.js';

const PROVIDER_KEY = 'test-provider-key-123';
let emulator: Emulator;
let server: Server;
let url: string;
const exporter = new InMemorySpanExporter();

/** A front door of its own: `{ "prompt": "..." }` in, `{ "answer": "..." }` or `delta` events out. */
function promptAdapter(): ChatResponseAdapter {
  let text = '';
  return {
    route: '/v1/test-prompts',
    spanAttributes: { 'gateway.prompt.id': 'welcome' },
    json: (result) => ({ answer: result.completion.choices[0]?.message.content }),
    streamStart: () => [{ event: 'start', data: { ok: true } }],
    streamChunk(chunk) {
      const delta = chunk.choices[0]?.delta.content;
      if (!delta) return [];
      text += delta;
      return [{ event: 'delta', data: { delta } }];
    },
    streamEnd: (outcome) => [{ event: 'done', data: { text, finish: outcome.finishReasons } }],
    streamError: () => [{ event: 'error', data: { failed: true } }],
  };
}

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  const telemetry = createTelemetry({ env: { OTEL_METRICS_EXPORTER: 'none' }, logger: () => {}, spanProcessorOverride: new SimpleSpanProcessor(exporter) });
  const configs = createRoutingConfigStore({});
  const deps = {
    telemetry,
    providers: { google: createGeminiProvider(), openai: undefined },
    targetEnv: { virtualKeys: { get: () => undefined }, baseUrls: { google: emulator.url, openai: 'http://127.0.0.1:9' }, customHosts: [] },
  };
  const contextEnv = { configs, timeoutMs: 10_000, spanIds: new SpanIdRegistry(), propagator: createContextPropagator() };
  server = createServer((req, res) => {
    void (async () => {
      try {
        let raw = '';
        for await (const c of req) raw += c;
        const { prompt, stream } = JSON.parse(raw) as { prompt: string; stream?: boolean };
        const request = parseChatRequest({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: prompt }], stream });
        const context = await readRequestContext(req.headers, contextEnv);
        await runChatOperation(deps, res, { context, request, adapter: promptAdapter() });
      } catch (err) {
        sendError(res, err);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await emulator.close();
});
beforeEach(() => {
  emulator.reset();
  exporter.reset();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'x-gateway-provider': 'google', authorization: `Bearer ${PROVIDER_KEY}`, 'x-gateway-trace-id': 'door-1', ...headers },
    body: JSON.stringify(body),
  });

describe('runChatOperation behind another front door', () => {
  it('writes the non-streamed answer in the door’s shape, with the gateway headers and spans', async () => {
    const res = await post({ prompt: 'hello' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-trace-id')).toBe('door-1');
    expect(res.headers.get('x-gateway-retry-attempt-count')).toBe('0');
    expect(Object.keys((await res.json()) as object)).toStrictEqual(['answer']);
    const server = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.attributes).toMatchObject({ 'gateway.prompt.id': 'welcome', 'http.route': '/v1/test-prompts', 'gen_ai.operation.name': 'chat' });
    expect(exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT)).toHaveLength(1);
    expect(emulator.requests[0]!.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
  });

  it('streams the door’s named events, and its end event instead of [DONE]', async () => {
    const res = await post({ prompt: 'hello', stream: true });
    const text = await res.text();
    const events = text.split('\n\n').filter(Boolean).map((e) => e.split('\n')[0]);
    expect(events[0]).toBe('event: start');
    expect(events.at(-1)).toBe('event: done');
    expect(events.slice(1, -1).every((e) => e === 'event: delta')).toBe(true);
    expect(text).not.toContain('[DONE]');
    expect(exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER)?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('answers an upstream error with the OpenAI envelope before the stream starts', async () => {
    emulator.enqueue({ status: 400, body: { error: { code: 400, message: 'Invalid argument.', status: 'INVALID_ARGUMENT' } } });
    const res = await post({ prompt: 'hello', stream: true });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect(res.headers.get('x-gateway-trace-id')).toBe('door-1');
  });

  it('a client that goes away aborts upstream and ends the spans as cancelled', async () => {
    emulator.enqueue({ delayMs: 5_000 });
    const abort = new AbortController();
    const req = fetch(url, {
      method: 'POST',
      headers: { 'x-gateway-provider': 'google', authorization: `Bearer ${PROVIDER_KEY}` },
      body: JSON.stringify({ prompt: 'slow' }),
      signal: abort.signal,
    }).catch(() => undefined);
    await waitFor(() => emulator.requests.length >= 1);
    abort.abort();
    await req;
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.kind === SpanKind.SERVER && s.attributes['error.type'] === 'cancelled'));
    const cancelled = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.SERVER && s.attributes['error.type'] === 'cancelled')!;
    expect(cancelled.status.code).toBe(SpanStatusCode.ERROR);
    expect(cancelled.attributes['http.response.status_code']).toBe(499);
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error('condition never held');
}
