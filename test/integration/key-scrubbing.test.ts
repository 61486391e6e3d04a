/**
 * No key in any answer, span or log (issue 15 item 6): an upstream that echoes the provider key
 * reaches the client, the exported spans and the log only through the one scrubber, on each of
 * the six paths upstream text takes (error status, before a stream, an error object inside a 200,
 * an SSE error event, an error array mid-stream and as the first event); a header value that looks
 * like a key is never echoed.
 */
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../../src/emulator/script.js';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { PROVIDER_KEY, postChat, startHarness, type Harness } from './harness.js';

const GOOGLE_KEY = 'AIzaSyD3m0K3yTh4tL00ksR34l-0123456789ab';
const exporter = new InMemorySpanExporter();
const logs: string[] = [];
let h: Harness;
beforeAll(async () => {
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none' },
    logger: (line) => logs.push(line),
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  h = await startHarness({}, { telemetry, log: (line) => logs.push(line) });
});
afterAll(() => h.close());
beforeEach(() => {
  h.emulator.reset();
  exporter.reset();
  logs.length = 0;
});

const MODEL = 'gemini-2.5-flash';
const request = (stream: boolean) => ({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream });
const chunk = (text: string) => ({
  data: { candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }], modelVersion: MODEL },
});
const echo = (key: string, code = 500) => ({
  code,
  message: `API key not valid: ${key}. Please pass a valid API key.`,
  status: code === 400 ? 'INVALID_ARGUMENT' : 'INTERNAL',
});

/** Everything the spans export: names, attributes, events and status messages, as one text. */
function exported(): string {
  return JSON.stringify(
    exporter.getFinishedSpans().map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events })),
  );
}

const paths: Array<{ name: string; stream: boolean; reply: (key: string) => ScriptedReply; status: number }> = [
  { name: 'an error status', stream: false, reply: (key) => ({ status: 400, body: { error: echo(key, 400) } }), status: 400 },
  { name: 'an error status before a stream', stream: true, reply: (key) => ({ status: 400, body: { error: echo(key, 400) } }), status: 400 },
  { name: 'an error object inside an HTTP 200', stream: false, reply: (key) => ({ status: 200, body: { error: echo(key) } }), status: 500 },
  { name: 'an SSE error event mid-stream', stream: true, reply: (key) => ({ chunks: [chunk('hello')], end: { error: echo(key) } }), status: 200 },
  { name: 'an error array mid-stream', stream: true, reply: (key) => ({ chunks: [chunk('hello'), { data: [{ error: echo(key) }] }] }), status: 200 },
  { name: 'an error array as the first event', stream: true, reply: (key) => ({ chunks: [{ data: [{ error: echo(key) }] }] }), status: 500 },
];

describe.each<{ keyName: string; key: string; headers: Record<string, string> }>([
  { keyName: 'the request key (any shape)', key: PROVIDER_KEY, headers: {} },
  { keyName: 'a Google-shaped key', key: GOOGLE_KEY, headers: { authorization: `Bearer ${GOOGLE_KEY}` } },
])('upstream echoes $keyName', ({ key, headers }) => {
  it.each(paths)('$name: scrubbed in the answer, the spans and the log', async ({ stream, reply, status }) => {
    h.emulator.enqueue(reply(key));
    const res = await postChat(h, request(stream), { ...h.headers, ...headers });
    const answer = await res.text();
    expect(res.status).toBe(status);
    // The client still learns what went wrong, without the key.
    expect(answer).toContain('API key not valid: [redacted]. Please pass a valid API key.');
    expect(answer).not.toContain(key);

    const spans = exporter.getFinishedSpans();
    const failedAttempt = spans.find((s) => s.kind === 2 && s.status.code === 2);
    expect(failedAttempt?.status.message).toBe('API key not valid: [redacted]. Please pass a valid API key.');
    expect(exported()).not.toContain(key);
    expect(logs.join('\n')).not.toContain(key);
  });
});

describe('Vertex AI (issue 22): tokens and service-account fields', () => {
  const vertexConfig = (extra: Record<string, unknown>) =>
    JSON.stringify({ provider: 'vertex-ai', vertex_project_id: 'sidegate-emulator', vertex_region: 'us-central1', custom_host: h.emulator.url, ...extra });

  it.each(paths)('a Vertex answer echoing the access token, $name: scrubbed in the answer, the spans and the log', async ({ stream, reply, status }) => {
    const token = h.emulator.googleAuth.issueToken();
    h.emulator.enqueue(reply(token));
    const res = await postChat(h, request(stream), { ...h.headers, 'x-gateway-config': vertexConfig({ api_key: token }) });
    const answer = await res.text();
    expect(res.status).toBe(status);
    expect(answer).toContain('API key not valid: [redacted]. Please pass a valid API key.');
    expect(answer).not.toContain(token);
    expect(exported()).not.toContain(token);
    expect(logs.join('\n')).not.toContain(token);
    expect(h.emulator.requests.at(-1)!.path).toMatch(/^\/v1\/projects\/sidegate-emulator\/locations\/us-central1\//);
  });

  it('a service-account key that cannot be used: the answer names the field, never its value', async () => {
    const secretKey = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';
    const res = await postChat(h, request(false), {
      ...h.headers,
      'x-gateway-config': vertexConfig({ vertex_service_account_json: { type: 'service_account', private_key: secretKey, client_email: 'x', token_uri: 'ftp://a' } }),
    });
    const answer = await res.text();
    expect(res.status).toBe(400);
    expect(answer).toContain('vertex_service_account_json');
    expect(answer).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
    expect(exported()).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
    expect(logs.join('\n')).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
  });
});

describe('header values that look like keys are never echoed', () => {
  it.each([
    { header: 'x-gateway-provider', value: GOOGLE_KEY },
    { header: 'x-gateway-provider', value: 'sk-proj-abcdefghijklmnop' },
    { header: 'x-gateway-config', value: 'AIzaSyD3m0K3yTh4tL00ksR34l' },
  ])('$header: $value → 4xx without it', async ({ header, value }) => {
    const res = await postChat(h, request(false), { ...h.headers, [header]: value });
    const answer = await res.text();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(answer).not.toContain(value);
    expect(exported()).not.toContain(value);
  });

  it('an ordinary wrong provider is still named, to help the caller', async () => {
    const res = await postChat(h, request(false), { ...h.headers, 'x-gateway-provider': 'azure' });
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('"azure"');
  });

  it('a key pasted into the path is not echoed in the 404', async () => {
    const res = await fetch(`${h.gateway.url}/v1/${GOOGLE_KEY}`, { headers: h.headers });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(GOOGLE_KEY);
  });
});
