/**
 * Graceful shutdown as a native sidecar sees it: readiness fails at once, in-flight streams finish,
 * new connections are refused, and the probe port answers until the end.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/start-gateway.js';
import { GATEWAY_KEY, PROVIDER_KEY } from './harness.js';

const frame = (text: string, finish?: string) =>
  `data: ${JSON.stringify({
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finish ? { finishReason: finish } : {}) }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
  })}\r\n\r\n`;

describe('shutdown', () => {
  it('drains an in-flight stream, fails readiness, refuses new connections', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const streaming = new Promise<void>((r) => (arrived = r));
    const upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame('before shutdown'));
      arrived();
      void released.then(() => res.end(frame(' and after', 'STOP')));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const gw = await startGateway(
      {
        port: 0,
        healthPort: 0,
        geminiBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        apiKeys: [GATEWAY_KEY],
        shutdownGraceMs: 30_000,
      },
      { log: () => {} },
    );
    const probe = `http://127.0.0.1:${gw.healthPort}`;
    try {
      expect((await fetch(`${probe}/readyz`)).status).toBe(200);
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google', authorization: PROVIDER_KEY },
        body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], stream: true }),
      });
      await streaming;

      const closing = gw.close();
      expect((await fetch(`${probe}/readyz`)).status).toBe(503);
      expect((await fetch(`${probe}/healthz`)).status).toBe(200);
      await expect(fetch(`${gw.url}/healthz`, { headers: { connection: 'close' } })).rejects.toThrow();

      release();
      const text = await response.text();
      expect(text).toContain('before shutdown');
      expect(text).toContain('and after');
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
      await closing;
      await expect(fetch(`${probe}/healthz`)).rejects.toThrow();
    } finally {
      release();
      await gw.close();
      upstream.closeAllConnections();
      await new Promise<void>((r) => upstream.close(() => r()));
    }
  });
});
