/**
 * The server's own limits and the upstream clock (issue 15 item 3), over real sockets with small
 * configured timeouts. Nothing here asserts how long something took, only that it happened.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { startGateway, type RunningGateway } from '../../src/gateway/start-gateway.js';
import { GATEWAY_KEY, postChat, PROVIDER_KEY, sseData, startHarness, type Harness } from './harness.js';

const body = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] };
const head = (port: number, extra = '') =>
  `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-gateway-api-key: ${GATEWAY_KEY}\r\n` +
  `x-gateway-provider: google\r\nauthorization: Bearer ${PROVIDER_KEY}\r\ncontent-type: application/json\r\n${extra}`;

/** A raw connection that records what it receives and when it is closed. */
function rawConnection(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed, connected, received: () => received };
}

/** Writes `text` one byte at a time until the socket closes. */
function trickle(socket: Socket, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]!);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

let harness: Harness | undefined;
const extra: Array<{ close(): unknown }> = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const x of extra.splice(0)) await x.close();
});

describe('server limits', () => {
  it('closes a connection that never sends a byte, on the API port and the health port', async () => {
    harness = await startHarness({ headersTimeoutMs: 150, healthPort: 0 });
    const api = rawConnection(harness.gateway.port);
    const health = rawConnection(harness.gateway.healthPort!);
    await Promise.all([api.closed, health.closed]);
    expect(api.received()).toMatch(/^(HTTP\/1\.1 408 .*)?$/s);
    expect(health.received()).toMatch(/^(HTTP\/1\.1 408 .*)?$/s);
  });

  it('answers 408 to a head that trickles in and closes the connection', async () => {
    harness = await startHarness({ headersTimeoutMs: 150 });
    const c = rawConnection(harness.gateway.port);
    await c.connected;
    trickle(c.socket, head(harness.gateway.port) + 'x-filler: ' + 'a'.repeat(10_000), 20);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('answers 408 to a body that trickles in, without cutting a long streamed answer', async () => {
    // Timeouts of a second, so a busy machine still receives a whole normal request in time; the
    // trickled body (~2 s) and the stream (~1.6 s) both outlast them.
    harness = await startHarness({ headersTimeoutMs: 1_000, requestTimeoutMs: 1_000 });
    const c = rawConnection(harness.gateway.port);
    await c.connected;
    const json = JSON.stringify(body);
    c.socket.write(head(harness.gateway.port, `content-length: ${json.length}\r\n\r\n`));
    trickle(c.socket, json, 30);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);

    // A stream that lasts several request timeouts: the request was complete, so it is not cut.
    harness.emulator.enqueue({
      chunks: [0, 1, 2, 3].map((i) => ({
        delayMs: 400,
        data: { candidates: [{ content: { role: 'model', parts: [{ text: `part${i} ` }] }, index: 0, ...(i === 3 ? { finishReason: 'STOP' } : {}) }] },
      })),
    });
    const res = await postChat(harness, { ...body, stream: true });
    const events = sseData(await res.text());
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.join('')).toContain('part3');
  });

  it('closes an idle keep-alive connection after its keep-alive timeout', async () => {
    harness = await startHarness({ keepAliveTimeoutMs: 150 });
    const c = rawConnection(harness.gateway.port);
    await c.connected;
    c.socket.write(`GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n`);
    await c.closed;
    expect(c.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(c.received().toLowerCase()).toContain('keep-alive');
  });

  it('refuses connections beyond SIDEGATE_MAX_CONNECTIONS with a 503 and the reason, and serves again below it', async () => {
    harness = await startHarness({ maxConnections: 2, headersTimeoutMs: 10_000, healthPort: 0 });
    const held = [rawConnection(harness.gateway.port), rawConnection(harness.gateway.port)];
    await Promise.all(held.map((c) => c.connected));
    const third = rawConnection(harness.gateway.port);
    await third.connected;
    third.socket.write('GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n');
    await third.closed;
    const answer = third.received();
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toContain('retry-after: 1');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.code).toBe('too_many_connections');

    held[0]!.socket.destroy();
    await held[0]!.closed;
    expect((await fetch(`${harness.gateway.url}/healthz`)).status).toBe(200);

    // The probe port has its own count and the same cap.
    const probes = [rawConnection(harness.gateway.healthPort!), rawConnection(harness.gateway.healthPort!)];
    await Promise.all(probes.map((c) => c.connected));
    const over = rawConnection(harness.gateway.healthPort!);
    await over.closed;
    expect(over.received()).toMatch(/^HTTP\/1\.1 503 /);
    for (const c of [...held, ...probes]) c.socket.destroy();
  });
});

describe('upstream clock', () => {
  it('does not count time queued for a pool connection toward the attempt timeout, and reports it', async () => {
    const exporter = new InMemorySpanExporter();
    const telemetry = createTelemetry({
      env: { OTEL_METRICS_EXPORTER: 'none' },
      logger: () => {},
      spanProcessorOverride: new SimpleSpanProcessor(exporter),
    });
    // One connection, four calls that each take most of the attempt timeout: the last ones wait
    // in the pool for longer than the timeout, and must still be answered.
    harness = await startHarness({ upstreamMaxConnections: 1, upstreamTimeoutMs: 1500 }, { telemetry });
    harness.emulator.enqueue({ delayMs: 600 }, { delayMs: 600 }, { delayMs: 600 }, { delayMs: 600 });
    const statuses = await Promise.all([0, 1, 2, 3].map(async () => (await postChat(harness!, body)).status));
    expect(statuses).toEqual([200, 200, 200, 200]);

    const attempts = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(attempts).toHaveLength(4);
    const queued = attempts.map((s) => s.attributes['gateway.upstream.queue_duration'] as number);
    for (const q of queued) expect(typeof q).toBe('number');
    expect(Math.max(...queued)).toBeGreaterThan(0);
    expect(await telemetry.renderMetrics!()).toContain('sidegate_upstream_queue_duration');
  });

  it('ends an answer whose body stalls for longer than the attempt timeout with a 504', async () => {
    const upstream: Server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"candidates": [');
      // …and nothing more.
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    extra.push({
      close: () => {
        upstream.closeAllConnections();
        return new Promise<void>((r) => upstream.close(() => r()));
      },
    });
    const gw: RunningGateway = await startGateway(
      { port: 0, apiKeys: [GATEWAY_KEY], upstreamTimeoutMs: 200, geminiBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
      { log: () => {} },
    );
    extra.push(gw);
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google', authorization: PROVIDER_KEY },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe('timeout_error');
  });
});
