import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientAbortError, InvalidRequestError } from '../errors.js';
import { createMediaFetcher, type MediaFetcherOptions } from './fetch-media.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

let server: Server;
let base: string;
let port: number;
const seenHosts: string[] = [];

function handle(req: IncomingMessage, res: ServerResponse): void {
  seenHosts.push(req.headers.host ?? '');
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  switch (path) {
    case '/cat.png':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
      res.end(PNG);
      return;
    case '/page.html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<p>hi</p>');
      return;
    case '/big-declared':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 5000 });
      res.end(Buffer.alloc(5000));
      return;
    case '/big-chunked':
      // No Content-Length: the cap must hold while streaming.
      res.writeHead(200, { 'content-type': 'image/png' });
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1000));
      res.end();
      return;
    case '/zip':
      res.writeHead(200, { 'content-type': 'application/zip' });
      res.end('PK');
      return;
    case '/missing':
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nope');
      return;
    case '/hang':
      return; // never answers
    case '/to-private':
      res.writeHead(302, { location: 'http://10.1.2.3/cat.png' });
      res.end();
      return;
    case '/to-metadata':
      res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
      return;
    case '/to-rebind':
      res.writeHead(307, { location: 'http://rebind.test/cat.png' });
      res.end();
      return;
    case '/to-relative':
      res.writeHead(302, { location: '/cat.png' });
      res.end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' });
      res.end();
      return;
    default:
      res.writeHead(500);
      res.end();
  }
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A DNS table for `lookup`, counting calls per name. */
function fakeDns(table: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = ((hostname: string, _options: unknown, callback: (err: Error | null, addresses: LookupAddress[]) => void) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      return;
    }
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  }) as unknown as NonNullable<MediaFetcherOptions['lookup']>;
  return { lookup, calls };
}

async function refusal(promise: Promise<unknown>): Promise<{ message: string; code: string | null; status: number }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidRequestError);
  const e = err as InvalidRequestError;
  return { message: e.message, code: e.code, status: e.status };
}

describe('createMediaFetcher: SSRF guard', () => {
  it('refuses a local server on 127.0.0.1 by default', async () => {
    const fetchMedia = createMediaFetcher();
    expect(await refusal(fetchMedia(`${base}/cat.png`))).toStrictEqual({
      message: 'media URL host 127.0.0.1 resolves to a private address (loopback) and is not fetched',
      code: 'media_url_refused',
      status: 400,
    });
  });

  it.each([
    { name: 'private IPv4 literal', url: 'http://10.0.0.7/a.png', want: 'private' },
    { name: 'IPv6 loopback literal', url: 'http://[::1]/a.png', want: 'loopback' },
    { name: 'IPv4-mapped loopback', url: 'http://[::ffff:127.0.0.1]/a.png', want: 'loopback' },
    { name: 'metadata address', url: 'http://169.254.169.254/latest/meta-data/', want: 'metadata' },
    { name: 'CGNAT', url: 'http://100.64.1.1/a.png', want: 'cgnat' },
  ])('refuses a $name', async ({ url, want }) => {
    const { message, code } = await refusal(createMediaFetcher()(url));
    expect(code).toBe('media_url_refused');
    expect(message).toContain(`resolves to a private address (${want})`);
  });

  it('refuses a name when any of its addresses is private, without naming the address', async () => {
    const { lookup } = fakeDns({ 'mixed.test': ['93.184.216.34', '192.168.7.7'] });
    const { message } = await refusal(createMediaFetcher({ lookup })('https://mixed.test/a.png'));
    expect(message).toBe('media URL host mixed.test resolves to a private address (private) and is not fetched');
    expect(message).not.toContain('192.168');
  });

  it('refuses metadata host names without resolving them', async () => {
    const { lookup, calls } = fakeDns({});
    const { message } = await refusal(createMediaFetcher({ lookup })('http://metadata.google.internal/computeMetadata/v1/'));
    expect(message).toBe('media URL host metadata.google.internal is a metadata service and is not fetched');
    expect(calls).toStrictEqual([]);
  });

  it.each([
    { url: 'file:///etc/passwd', code: 'media_url_refused' },
    { url: 'ftp://example.com/a.png', code: 'media_url_refused' },
    { url: 'http://user:pw@example.com/a.png', code: 'media_url_refused' },
    { url: 'not a url', code: 'invalid_media' },
  ])('refuses $url', async ({ url, code }) => {
    expect((await refusal(createMediaFetcher()(url))).code).toBe(code);
  });

  it('refuses a name that does not resolve', async () => {
    const { lookup } = fakeDns({});
    expect(await refusal(createMediaFetcher({ lookup })('https://nowhere.test/a.png'))).toStrictEqual({
      message: 'media URL host nowhere.test could not be resolved',
      code: 'media_fetch_failed',
      status: 400,
    });
  });

  it('refuses a redirect to a private address', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'] });
    expect((await refusal(fetchMedia(`${base}/to-private`))).message).toBe(
      'media URL host 10.1.2.3 resolves to a private address (private) and is not fetched',
    );
    expect((await refusal(fetchMedia(`${base}/to-metadata`))).message).toContain('(metadata)');
  });

  it('re-checks a redirect to a name that resolves to a private address', async () => {
    const { lookup } = fakeDns({ 'rebind.test': ['127.0.0.1'] });
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'], lookup });
    expect((await refusal(fetchMedia(`${base}/to-rebind`))).message).toBe(
      'media URL host rebind.test resolves to a private address (loopback) and is not fetched',
    );
  });

  it('refuses more than 3 redirects', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'] });
    expect((await refusal(fetchMedia(`${base}/loop`))).message).toBe('media URL redirected more than 3 times');
  });
});

describe('createMediaFetcher: fetching', () => {
  it('fetches an allowed host as base64 with its MIME type', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'] });
    expect(await fetchMedia(`${base}/cat.png`)).toStrictEqual({ mimeType: 'image/png', data: PNG.toString('base64') });
  });

  it('follows a relative redirect', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'] });
    expect(await fetchMedia(`${base}/to-relative`)).toStrictEqual({ mimeType: 'image/png', data: PNG.toString('base64') });
  });

  it('sends HTML as text/plain', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'] });
    expect(await fetchMedia(`${base}/page.html`)).toStrictEqual({
      mimeType: 'text/plain',
      data: Buffer.from('<p>hi</p>').toString('base64'),
    });
  });

  it('connects to the checked address, resolving once, with the original Host header', async () => {
    const { lookup, calls } = fakeDns({ 'media.test': ['127.0.0.1'] });
    const fetchMedia = createMediaFetcher({ allowHosts: ['media.test'], lookup });
    seenHosts.length = 0;
    expect(await fetchMedia(`http://media.test:${port}/cat.png`)).toStrictEqual({
      mimeType: 'image/png',
      data: PNG.toString('base64'),
    });
    expect(calls).toStrictEqual(['media.test']);
    expect(seenHosts).toStrictEqual([`media.test:${port}`]);
  });

  it('refuses an unsupported Content-Type', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'] });
    expect(await refusal(fetchMedia(`${base}/zip`))).toStrictEqual({
      message: `media URL 127.0.0.1:${port} returned type "application/zip", which Gemini does not accept`,
      code: 'unsupported_media_type',
      status: 400,
    });
  });

  it('refuses an error status', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'] });
    expect((await refusal(fetchMedia(`${base}/missing`))).message).toBe(`media URL 127.0.0.1:${port} answered HTTP 404`);
  });

  it.each(['/big-declared', '/big-chunked'])('enforces the size cap (%s)', async (path) => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'], maxBytes: 1024 });
    expect(await refusal(fetchMedia(`${base}${path}`))).toStrictEqual({
      message: 'media URL body exceeds the limit of 1024 bytes',
      code: 'media_too_large',
      status: 400,
    });
  });

  it('gives up after the timeout', async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'], timeoutMs: 200 });
    expect(await refusal(fetchMedia(`${base}/hang`))).toStrictEqual({
      message: 'media URL did not answer within 200 ms',
      code: 'media_fetch_timeout',
      status: 400,
    });
  });

  it("stops when the caller's signal aborts", async () => {
    const fetchMedia = createMediaFetcher({ allowHosts: ['127.0.0.1'] });
    const caller = new AbortController();
    const pending = fetchMedia(`${base}/hang`, caller.signal);
    setTimeout(() => caller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(ClientAbortError);
  });

  it('gives up on DNS that never answers once the deadline passes', async () => {
    const lookup = (() => undefined) as unknown as NonNullable<MediaFetcherOptions['lookup']>;
    const fetchMedia = createMediaFetcher({ lookup, timeoutMs: 100 });
    expect((await refusal(fetchMedia('https://slow-dns.test/a.png'))).code).toBe('media_fetch_timeout');
  });
});
