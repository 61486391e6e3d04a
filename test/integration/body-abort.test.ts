/**
 * A client that disconnects while sending its body (issue 15 item 6) is a client abort: one
 * request span with status 499 and `error.type` `cancelled`, no error log line, nothing upstream,
 * and the gateway keeps serving.
 */
import { connect } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { GATEWAY_KEY, postChat, startHarness, type Harness } from './harness.js';

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

/** Sends the headers and part of the body, then drops the connection. */
function abandonBody(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(h.gateway.port, '127.0.0.1', () => {
      socket.write(
        'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
          `x-gateway-api-key: ${GATEWAY_KEY}\r\nx-gateway-provider: google\r\nauthorization: Bearer k-123456\r\n` +
          'content-length: 1000\r\n\r\n{"model":"gemini-2.5-flash","messa',
        () => setTimeout(() => socket.destroy(), 50),
      );
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('a client that leaves while sending its body', () => {
  it('is a 499 client abort on the request span, with no log line and nothing upstream', async () => {
    await abandonBody();
    await until(() => exporter.getFinishedSpans().length > 0);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0]!.kind).toBe(SpanKind.SERVER);
    expect(spans[0]!.attributes['http.response.status_code']).toBe(499);
    expect(spans[0]!.attributes['error.type']).toBe('cancelled');
    expect(logs).toStrictEqual([]);
    expect(h.emulator.requests).toHaveLength(0);
  });

  it('leaves the gateway serving', async () => {
    expect((await postChat(h, { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] })).status).toBe(200);
  });
});
