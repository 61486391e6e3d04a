/**
 * Gemini's files API (gemini-wire §13): the resumable upload and `GET /v1beta/files/{id}`. The
 * one client of that resource: the files route uploads and reads through it, and the Gemini
 * provider looks up a file's MIME type through it.
 *
 * The upload streams: bytes are read from the source one chunk (8 MiB, as the SDKs use) at a
 * time and each chunk is sent before the next is read, so at most one chunk per upload is in
 * memory whatever the file's size. The provider key travels only in `x-goog-api-key` (and only
 * to the base URL's origin), never in a URL or a message. Upstream HTTP goes through an injected
 * undici `request` over a keep-alive `Agent` (DESIGN Decision 14). One client serves many calls.
 */
import type { Readable } from 'node:stream';
import { Agent, request as undiciRequest, type Dispatcher } from '../../http-client.js';
import { z } from 'zod';
import { InvalidRequestError, UpstreamError } from '../../errors.js';
import { parseGeminiError } from './errors.js';

/** The fields of Gemini's `File` resource (§13.2) that the gateway reads; lenient by design. */
export const GeminiFile = z.looseObject({
  name: z.string(),
  displayName: z.string().nullish(),
  mimeType: z.string().nullish(),
  sizeBytes: z.union([z.string(), z.number()]).nullish(),
  createTime: z.string().nullish(),
  updateTime: z.string().nullish(),
  expirationTime: z.string().nullish(),
  uri: z.string().nullish(),
  state: z.string().nullish(),
  error: z.looseObject({ code: z.number().nullish(), message: z.string().nullish() }).nullish(),
});
export type GeminiFile = z.infer<typeof GeminiFile>;

export type RequestFunction = typeof undiciRequest;

export interface GeminiFilesClientOptions {
  /** undici's `request`, or a stand-in with its signature. */
  request?: RequestFunction;
  /** Defaults to a keep-alive `Agent` owned by the client. */
  dispatcher?: Dispatcher;
  /** Bytes per upload request (default 8 MiB, what both Google SDKs use). */
  chunkBytes?: number;
  /** Per upstream call, until its response headers arrive (default 10 min). */
  timeoutMs?: number;
}

export interface ProviderCredential {
  apiKey: string;
  /** Gemini base URL without a trailing slash, e.g. `https://generativelanguage.googleapis.com`. */
  baseUrl: string;
}

export interface UploadFileParams extends ProviderCredential {
  displayName: string;
  mimeType: string;
  /** Exact byte count of `body`; the start request declares it (§13.1). */
  size: number;
  body: Readable | AsyncIterable<Uint8Array>;
  signal?: AbortSignal;
}

export interface GetFileParams extends ProviderCredential {
  /** The id without `files/`. */
  id: string;
  signal?: AbortSignal;
  /** Until response headers arrive; default the client's `timeoutMs` (an attempt passes its own). */
  timeoutMs?: number;
  /** Extra request headers (an attempt's `traceparent`). */
  headers?: Record<string, string>;
}

export interface GeminiFilesClient {
  /** Resumable upload (start → upload… → upload, finalize); resolves with the finalized `File`. */
  upload(params: UploadFileParams): Promise<GeminiFile>;
  getFile(params: GetFileParams): Promise<GeminiFile>;
}

const MiB = 1024 * 1024;
const MAX_ERROR_BODY = 64 * 1024;

export function createGeminiFilesClient(options: GeminiFilesClientOptions = {}): GeminiFilesClient {
  const request = options.request ?? undiciRequest;
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 16 });
  const chunkBytes = options.chunkBytes ?? 8 * MiB;
  const timeoutMs = options.timeoutMs ?? 600_000;

  async function call(
    url: string,
    init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: Buffer | string; signal?: AbortSignal | undefined; timeoutMs?: number | undefined },
    apiKey: string,
  ): Promise<Dispatcher.ResponseData> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: init.method,
        headers: init.headers,
        body: init.body ?? null,
        dispatcher,
        headersTimeout: init.timeoutMs ?? timeoutMs,
        bodyTimeout: init.timeoutMs ?? timeoutMs,
        ...(init.signal ? { signal: init.signal } : {}),
      });
    } catch (err) {
      throw connectionError(err);
    }
    if (response.statusCode >= 400) throw await providerError(response, apiKey);
    return response;
  }

  async function readFile(response: Dispatcher.ResponseData, wrapped: boolean): Promise<GeminiFile> {
    let json: unknown;
    try {
      json = await response.body.json();
    } catch {
      throw new UpstreamError('the provider answered the files API with a body that is not JSON', { status: 502, reason: 'invalid_response' });
    }
    const parsed = GeminiFile.safeParse(wrapped ? (json as { file?: unknown } | null)?.file : json);
    if (!parsed.success) {
      throw new UpstreamError('the provider answered the files API without a File resource', { status: 502, reason: 'invalid_response' });
    }
    return parsed.data;
  }

  return {
    async upload(params) {
      const start = await call(
        `${params.baseUrl}/upload/v1beta/files`,
        {
          method: 'POST',
          headers: {
            'x-goog-api-key': params.apiKey,
            'content-type': 'application/json',
            'x-goog-upload-protocol': 'resumable',
            'x-goog-upload-command': 'start',
            'x-goog-upload-header-content-length': String(params.size),
            'x-goog-upload-header-content-type': params.mimeType,
          },
          body: JSON.stringify({ file: { displayName: params.displayName } }),
          signal: params.signal,
        },
        params.apiKey,
      );
      await start.body.dump();
      const uploadUrl = start.headers['x-goog-upload-url'];
      if (typeof uploadUrl !== 'string' || !/^https?:\/\//.test(uploadUrl)) {
        throw new UpstreamError('the provider did not return an upload URL', { status: 502, reason: 'invalid_response' });
      }
      // The upload id in the URL authorises the chunks; the key goes only to the provider's own origin.
      const keyHeader: Record<string, string> = sameOrigin(uploadUrl, params.baseUrl) ? { 'x-goog-api-key': params.apiKey } : {};

      let offset = 0;
      try {
        for await (const chunk of exactChunks(params.body, params.size, chunkBytes)) {
          const last = offset + chunk.length === params.size;
          const response = await call(
            uploadUrl,
            {
              method: 'POST',
              headers: Object.assign({}, keyHeader, {
                'x-goog-upload-command': last ? 'upload, finalize' : 'upload',
                'x-goog-upload-offset': String(offset),
                'content-type': 'application/octet-stream',
              }),
              body: chunk,
              signal: params.signal,
            },
            params.apiKey,
          );
          offset += chunk.length;
          const status = String(response.headers['x-goog-upload-status'] ?? '').toLowerCase();
          if (last) {
            if (status !== '' && status !== 'final') {
              await response.body.dump();
              throw new UpstreamError(`the provider ended the upload with status ${JSON.stringify(status.slice(0, 40))}`, { status: 502, reason: 'invalid_response' });
            }
            return await readFile(response, true);
          }
          await response.body.dump();
          if (status !== 'active') {
            throw new UpstreamError(`the provider stopped the upload (status ${JSON.stringify(status.slice(0, 40))})`, { status: 502, reason: 'invalid_response' });
          }
        }
      } catch (err) {
        void cancel(uploadUrl, keyHeader);
        throw err;
      }
      throw new UpstreamError('upload ended without a finalize response', { status: 502, reason: 'invalid_response' });
    },

    async getFile(params) {
      const response = await call(
        `${params.baseUrl}/v1beta/files/${encodeURIComponent(params.id)}`,
        { method: 'GET', headers: Object.assign({}, params.headers, { 'x-goog-api-key': params.apiKey }), signal: params.signal, timeoutMs: params.timeoutMs },
        params.apiKey,
      );
      return readFile(response, false);
    },
  };

  /** Best effort: tells the provider to drop a half-done upload session. */
  async function cancel(uploadUrl: string, keyHeader: Record<string, string>): Promise<void> {
    try {
      const res = await request(uploadUrl, {
        method: 'POST',
        headers: Object.assign({}, keyHeader, { 'x-goog-upload-command': 'cancel' }),
        dispatcher,
        headersTimeout: 10_000,
      });
      await res.body.dump();
    } catch {
      // the session expires on its own
    }
  }
}

/**
 * Yields `source` as buffers of exactly `chunkBytes` (the last one shorter), checking that it
 * holds exactly `total` bytes. A zero-byte source yields one empty buffer, so the upload still
 * sends its `upload, finalize` request.
 */
export async function* exactChunks(source: AsyncIterable<Uint8Array | string>, total: number, chunkBytes: number): AsyncGenerator<Buffer> {
  if (total === 0) {
    for await (const piece of source) if (piece.length > 0) throw sizeMismatch(total);
    yield Buffer.alloc(0);
    return;
  }
  let offset = 0;
  let buf = Buffer.allocUnsafe(Math.min(chunkBytes, total));
  let filled = 0;
  for await (const raw of source) {
    let piece = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    while (piece.length > 0) {
      if (offset + filled >= total) throw sizeMismatch(total);
      const n = Math.min(buf.length - filled, piece.length);
      piece.copy(buf, filled, 0, n);
      filled += n;
      piece = piece.subarray(n);
      if (filled === buf.length) {
        yield buf;
        offset += filled;
        filled = 0;
        if (offset < total) buf = Buffer.allocUnsafe(Math.min(chunkBytes, total - offset));
      }
    }
  }
  if (offset + filled !== total) throw sizeMismatch(total);
}

function sizeMismatch(total: number): InvalidRequestError {
  return new InvalidRequestError(`the file's size does not match the declared ${total} bytes`, { param: 'file', code: 'size_mismatch' });
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** A failed upstream call of a Gemini resource API (`api` names it in the message) → `UpstreamError`. */
export function connectionError(err: unknown, api = "the provider's files API", cancelled = 'the upload was cancelled'): UpstreamError {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new UpstreamError(`${api} did not answer in time`, { status: 504, reason: 'timeout', cause: err });
  }
  if (code === 'UND_ERR_ABORTED' || (err as { name?: string } | null)?.name === 'AbortError') {
    return new UpstreamError(cancelled, { status: 499, reason: 'cancelled', retryable: false, cause: err });
  }
  return new UpstreamError(`could not reach ${api}`, { status: 502, reason: 'connection_error', cause: err });
}

/** Gemini's error body (§11.1) → `UpstreamError` with its status and message, key scrubbed (the provider's parser). */
export async function providerError(response: Dispatcher.ResponseData, apiKey: string, api = "the provider's files API"): Promise<UpstreamError> {
  let text = '';
  try {
    for await (const piece of response.body as AsyncIterable<Buffer>) {
      if (text.length < MAX_ERROR_BODY) text += piece.toString('utf8');
    }
  } catch {
    // a broken error body still leaves the status
  }
  const retryAfter = response.headers['retry-after'];
  return parseGeminiError(response.statusCode, text, {
    apiKey,
    fallbackMessage: `${api} answered HTTP ${response.statusCode}`,
    ...(typeof retryAfter === 'string' ? { retryAfterHeader: retryAfter } : {}),
  });
}
