import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';
import { afterEach, describe, expect, it } from 'vitest';
import { closeCollectors, collector, type Received } from './test-helpers.js';
import { UndiciExportTransport } from './undici-export-transport.js';

afterEach(closeCollectors);

// The SDK's own HTTP transport (node:http), which this one replaces: every case below is sent
// through both, to the same collector, and must be received and answered the same.
const load = createRequire(import.meta.url);
const exporterBase = dirname(load.resolve('@opentelemetry/otlp-exporter-base'));
const { createHttpExporterTransport } = load(join(exporterBase, 'transport/http-exporter-transport.js')) as {
  createHttpExporterTransport: (parameters: object) => IExporterTransport;
};
const { httpAgentFactoryFromOptions } = load('@opentelemetry/otlp-exporter-base/node-http') as {
  httpAgentFactoryFromOptions: (options: object) => unknown;
};
const { VERSION } = load(join(exporterBase, 'version.js')) as { VERSION: string };

const configured = { 'Content-Type': 'application/x-protobuf', 'x-tenant': 'acme', 'user-agent': 'configured' };

function transports(url: string, compression: 'gzip' | 'none' = 'none', userAgent?: string) {
  const headers = () => Promise.resolve({ ...configured });
  return {
    sdk: createHttpExporterTransport({ url, headers, compression, userAgent, agentFactory: httpAgentFactoryFromOptions({ keepAlive: true }) }),
    ours: new UndiciExportTransport({ url, headers, compression, userAgent }),
  };
}

/** What the delegate reads of an answer: the status, the retry delay, the error's message, code and data. */
function answerOf(response: ExportResponse) {
  switch (response.status) {
    case 'success':
      return { status: response.status, data: Buffer.from(response.data ?? []).toString() };
    case 'retryable':
      return { status: response.status, retryInMillis: response.retryInMillis, error: response.error === undefined ? undefined : 'error' };
    case 'failure': {
      const error = response.error as Error & { code?: unknown; data?: unknown };
      return { status: response.status, message: error.message, code: error.code, data: error.data };
    }
  }
}

/** What the collector sees of a request, the body decompressed. */
function requestOf(r: Received) {
  const { host: _host, connection: _connection, 'transfer-encoding': _te, 'content-length': _length, ...headers } = r.headers;
  return { method: r.method, url: r.url, headers, body: r.headers['content-encoding'] === 'gzip' ? gunzipSync(r.body) : r.body };
}

const payload = new Uint8Array(Buffer.from('spans, serialised'));

describe('UndiciExportTransport, side by side with the SDK’s node:http transport', () => {
  it.each([
    { name: 'accepted, with the collector’s partial-success answer', answer: { status: 200, body: 'partial' } },
    { name: 'accepted, empty', answer: { status: 200 } },
    { name: 'refused (400), with its message', answer: { status: 400, body: 'bad span' } },
    { name: 'refused (413)', answer: { status: 413 } },
    { name: 'throttled (429) with Retry-After seconds', answer: { status: 429, headers: { 'retry-after': '2' } } },
    { name: 'unavailable (503) without Retry-After', answer: { status: 503 } },
    { name: 'bad gateway (502) with Retry-After 0', answer: { status: 502, headers: { 'retry-after': '0' } } },
    { name: 'timeout (504) with a Retry-After date in the past', answer: { status: 504, headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' } } },
  ])('$name: the same request received, the same answer', async ({ answer }) => {
    const { url, received } = await collector(answer);
    const { sdk, ours } = transports(url);
    const sdkAnswer = answerOf(await sdk.send(payload, 5_000));
    const ourAnswer = answerOf(await ours.send(payload, 5_000));
    expect(ourAnswer).toStrictEqual(sdkAnswer);
    expect(received).toHaveLength(2);
    expect(requestOf(received[1]!)).toStrictEqual(requestOf(received[0]!));
    expect(received[1]!.headers['user-agent']).toBe(`OTel-OTLP-Exporter-JavaScript/${VERSION}`);
    expect(received[1]!.headers['x-tenant']).toBe('acme');
    expect(received[1]!.body).toStrictEqual(Buffer.from(payload));
    ours.shutdown();
  });

  it('gzip: the same compressed body and Content-Encoding, and a configured user agent before the SDK’s', async () => {
    const { url, received } = await collector({ status: 200 });
    const { sdk, ours } = transports(url, 'gzip', 'sidegate/1');
    await sdk.send(payload, 5_000);
    expect(answerOf(await ours.send(payload, 5_000))).toStrictEqual({ status: 'success', data: '' });
    expect(requestOf(received[1]!)).toStrictEqual(requestOf(received[0]!));
    expect(received[1]!.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(received[1]!.body)).toStrictEqual(Buffer.from(payload));
    expect(received[1]!.headers['user-agent']).toBe(`sidegate/1 OTel-OTLP-Exporter-JavaScript/${VERSION}`);
    ours.shutdown();
  });

  it('a collector that is not there: retryable, as the SDK answers', async () => {
    const { url, server } = await collector({ status: 200 });
    await new Promise((resolve) => server.close(resolve));
    const { sdk, ours } = transports(url);
    expect((await sdk.send(payload, 5_000)).status).toBe('retryable');
    expect((await ours.send(payload, 5_000)).status).toBe('retryable');
    ours.shutdown();
  });

  it('a collector that never answers: retryable once the timeout has passed', async () => {
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
    const { ours } = transports(url);
    const answer = await ours.send(payload, 200);
    expect(answer.status).toBe('retryable');
    server.closeAllConnections();
    server.close();
    ours.shutdown();
  });

  it('an answer larger than 4 MB: a failure, the connection dropped, as the SDK does', async () => {
    const { url } = await collector({ status: 200, body: Buffer.alloc(4 * 1024 * 1024 + 1) });
    const { sdk, ours } = transports(url);
    const sdkAnswer = answerOf(await sdk.send(payload, 5_000));
    expect(answerOf(await ours.send(payload, 5_000))).toStrictEqual(sdkAnswer);
    expect(sdkAnswer.status).toBe('failure');
    ours.shutdown();
  });
});
