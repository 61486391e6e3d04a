/** A collector for the exporters' tests: a node:http server that keeps every request it receives. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The client's port: which connection the request came on. */
  port: number | undefined;
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const servers: Server[] = [];

/** A collector that answers every request with `answer` and keeps what it received; `url` is its `/v1/traces`. */
export async function collector(answer: { status: number; headers?: Record<string, string>; body?: string | Buffer } = { status: 200 }) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ port: req.socket.remotePort, method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, url: `${origin}/v1/traces`, received, server };
}

/** Closes every collector started so far (an `afterEach`). */
export async function closeCollectors(): Promise<void> {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
}
