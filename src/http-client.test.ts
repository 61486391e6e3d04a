import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, request } from './http-client.js';

describe('http-client', () => {
  it('is undici’s own Agent class (the internal path still resolves to it)', () => {
    expect(Agent).toBe(undici.Agent);
  });

  it('sends a request through a named dispatcher with path, query, headers and body', async () => {
    const seen: Array<{ method?: string; url?: string; header?: string; body: string }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, header: req.headers['x-test'] as string, body });
        res.writeHead(201, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const agent = new Agent({ connections: 1 });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1beta/models/m:streamGenerateContent?alt=sse`;
      const res = await request(url, { method: 'POST', dispatcher: agent, headers: { 'x-test': 'yes' }, body: '{"a":1}' });
      expect(res.statusCode).toBe(201);
      expect(await res.body.text()).toBe('ok');
      expect(seen).toStrictEqual([{ method: 'POST', url: '/v1beta/models/m:streamGenerateContent?alt=sse', header: 'yes', body: '{"a":1}' }]);
    } finally {
      await agent.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
