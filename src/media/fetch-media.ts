/**
 * Fetches a public http(s) media URL for inlining (issue 3 item 2; DESIGN Decision 11, used only
 * when `SIDEGATE_FETCH_MEDIA_URLS=true`), guarded against SSRF:
 *
 * - the host is resolved first and every address it resolves to must be public
 *   (`classifyAddress`); cloud metadata names are refused without resolving;
 * - the connection goes to the address that was checked: the hop's undici `Agent` gets a `lookup`
 *   that answers with it, so there is no second resolution a rebinding DNS server could change,
 *   while the Host header and TLS SNI still carry the original name;
 * - at most 3 redirects, each hop checked the same way;
 * - a size cap (default 20 MiB, the historical inline limit, gemini-wire §13.3) enforced from
 *   `Content-Length` and again while streaming; one deadline for all hops and the body;
 * - the Content-Type must be a media type Gemini takes (`normalizeMediaMimeType`).
 *
 * Every refusal is an `InvalidRequestError` whose message names the URL's host at most, never an
 * address it resolved to. One fetcher serves many calls; each call's state is its own.
 */
import type { ClientSignal } from '../client-signal.js';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, request, type Dispatcher } from '../http-client.js';
import { ClientAbortError, InvalidRequestError } from '../errors.js';
import { classifyAddress } from './classify-address.js';
import { normalizeMediaMimeType } from './mime-types.js';

export interface MediaFetcherOptions {
  /** Largest body accepted, in bytes (default 20 MiB). */
  maxBytes?: number;
  /** Deadline for the whole fetch, redirects and body included (default 15 s). */
  timeoutMs?: number;
  /** DNS resolution (tests inject a fixed table). Called with `{ all: true }`. */
  lookup?: typeof dnsLookup;
  /**
   * Host names (as in the URL, lower case, IPv6 without brackets) whose addresses are not checked.
   * A test seam and an escape hatch for a known internal media server; still resolved and pinned.
   */
  allowHosts?: string[];
}

export interface FetchedMedia {
  /** Normalised MIME type (`text/*` and HTML become `text/plain`). */
  mimeType: string;
  /** The body, base64. */
  data: string;
}

/** `signal` (optional) cancels the fetch when the caller's request ends; it then rejects with `ClientAbortError`. */
export type MediaFetcher = (url: string, signal?: ClientSignal) => Promise<FetchedMedia>;

const MiB = 1024 * 1024;
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Names of cloud metadata services, refused before any resolution. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

function refuse(message: string, code: string): InvalidRequestError {
  return new InvalidRequestError(message, { code });
}

export function createMediaFetcher(options: MediaFetcherOptions = {}): MediaFetcher {
  const maxBytes = options.maxBytes ?? 20 * MiB;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const lookup = options.lookup ?? dnsLookup;
  const allowHosts = new Set((options.allowHosts ?? []).map(normalizeHost));

  function resolve(host: string): Promise<LookupAddress[]> {
    return new Promise((ok, fail) => {
      lookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? fail(err) : ok(addresses)));
    });
  }

  /** The address to connect to for `url`'s host, after checking every address it resolves to. */
  async function checkedAddress(url: URL): Promise<LookupAddress> {
    const host = normalizeHost(url.hostname);
    if (METADATA_HOSTS.has(host)) throw refuse(`media URL host ${host} is a metadata service and is not fetched`, 'media_url_refused');
    const literal = classifyAddress(host);
    let addresses: LookupAddress[];
    if (literal !== 'invalid') {
      addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
    } else {
      try {
        addresses = await resolve(host);
      } catch {
        throw refuse(`media URL host ${host} could not be resolved`, 'media_fetch_failed');
      }
      if (addresses.length === 0) throw refuse(`media URL host ${host} could not be resolved`, 'media_fetch_failed');
    }
    if (!allowHosts.has(host)) {
      for (const { address } of addresses) {
        const kind = classifyAddress(address);
        if (kind !== 'public') {
          throw refuse(`media URL host ${host} resolves to a private address (${kind}) and is not fetched`, 'media_url_refused');
        }
      }
    }
    return addresses[0]!;
  }

  return async function fetchMedia(rawUrl: string, signal?: ClientSignal): Promise<FetchedMedia> {
    let url = parseMediaUrl(rawUrl);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    timer.unref();
    const onCallerAbort = () => abort.abort();
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    if (signal?.aborted) abort.abort();
    const stopped = (): Error => (signal?.aborted ? new ClientAbortError() : timeoutError(timeoutMs));
    try {
      for (let hop = 0; ; hop++) {
        // DNS has its own, longer timeouts; the deadline and the caller's cancel win over it.
        const pinned = await untilAborted(checkedAddress(url), abort.signal, stopped);
        const agent = new Agent({ connect: { lookup: pinnedLookup(pinned), autoSelectFamily: false }, connections: 1, pipelining: 0 });
        try {
          const response = await send(url, agent, abort.signal, stopped);
          const location = response.headers.location;
          if (REDIRECTS.has(response.statusCode) && typeof location === 'string') {
            response.body.resume();
            if (hop >= MAX_REDIRECTS) throw refuse(`media URL redirected more than ${MAX_REDIRECTS} times`, 'media_fetch_failed');
            url = parseMediaUrl(new URL(location, url).href);
            continue;
          }
          return await readMedia(response, url, maxBytes, abort.signal, stopped);
        } finally {
          agent.destroy().catch(() => undefined);
        }
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  };
}

async function send(url: URL, agent: Agent, signal: AbortSignal, stopped: () => Error): Promise<Dispatcher.ResponseData> {
  try {
    return await request(url, {
      method: 'GET',
      dispatcher: agent,
      signal,
      headers: { accept: 'image/*, audio/*, video/*, application/pdf, text/*;q=0.5', 'user-agent': 'sidegate-media-fetcher' },
    });
  } catch (err) {
    if (signal.aborted) throw stopped();
    throw refuse(`media URL ${url.host} could not be fetched (${(err as { code?: string }).code ?? 'connection failed'})`, 'media_fetch_failed');
  }
}

async function readMedia(
  response: Dispatcher.ResponseData,
  url: URL,
  maxBytes: number,
  signal: AbortSignal,
  stopped: () => Error,
): Promise<FetchedMedia> {
  const { statusCode, headers, body } = response;
  if (statusCode < 200 || statusCode > 299) {
    body.resume();
    throw refuse(`media URL ${url.host} answered HTTP ${statusCode}`, 'media_fetch_failed');
  }
  const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : '';
  const mimeType = normalizeMediaMimeType(contentType);
  if (mimeType === undefined) {
    discard(body);
    throw refuse(`media URL ${url.host} returned type ${JSON.stringify(contentType.slice(0, 100))}, which Gemini does not accept`, 'unsupported_media_type');
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(body);
    throw tooLarge(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        discard(body);
        throw tooLarge(maxBytes);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof InvalidRequestError) throw err;
    if (signal.aborted) throw stopped();
    throw refuse(`media URL ${url.host} closed the connection before the body ended`, 'media_fetch_failed');
  }
  return { mimeType, data: Buffer.concat(chunks, size).toString('base64') };
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal, stopped: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(stopped());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Drops a body we will not read; undici reports the abort as an error event, which is expected here. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function parseMediaUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('media URL is not a valid URL', 'invalid_media');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refuse(`media URL scheme ${url.protocol} is not fetched; only http and https are`, 'media_url_refused');
  }
  if (url.username !== '' || url.password !== '') {
    throw refuse('media URLs with credentials are not fetched', 'media_url_refused');
  }
  return url;
}

/** `net` lookup that answers every query with the one checked address. */
function pinnedLookup(pinned: LookupAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

function tooLarge(maxBytes: number): InvalidRequestError {
  return new InvalidRequestError(`media URL body exceeds the limit of ${maxBytes} bytes`, { code: 'media_too_large' });
}

function timeoutError(timeoutMs: number): InvalidRequestError {
  return new InvalidRequestError(`media URL did not answer within ${timeoutMs} ms`, { code: 'media_fetch_timeout' });
}
