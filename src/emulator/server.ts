// The emulator's HTTP server (node:http, no framework): routes of gemini-wire.md §1, auth of §12,
// files of §13, countTokens and models of §14, plus the `/__emulator/*` control API.
// Built once per emulator; a request does string splits and map lookups only.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildDefaultAnswer, countPrompt, tokensOf } from './default-answer.js';
import { CACHES_PATH, CacheStore, cacheConflict } from './features/cached-contents.js';
import { googleError, invalidKeyError, missingKeyError, modelNotFoundError, type GoogleErrorBody } from './errors.js';
import { FileStore, fileNotFound } from './files.js';
import { batchEmbedResponse, embedResponse, validateBatchEmbedRequest, validateEmbedRequest } from './embed.js';
import { buildModelCatalog, DEFAULT_MODEL_IDS, methodFor } from './models.js';
import { answerToChunks, answerToResponse, writeJson, writeRaw, writeStream } from './respond.js';
import {
  checkReplyShape,
  isDropReply,
  isJsonReply,
  isRawReply,
  isStreamReply,
  ReplyQueue,
  type RecordedRequest,
  type ScriptedReply,
} from './script.js';
import { validateCountTokensRequest, validateGenerateRequest, type WireRequest } from './validate-request.js';
import { GoogleAuthEmulator, type GoogleAuthEmulatorOptions } from './google-auth.js';
import { createVertexRoutes, type VertexEmulatorOptions } from './vertex.js';

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Valid API keys; unset = any non-empty key is valid. */
  apiKeys?: string[];
  /** Largest request body accepted (default 100 MB, the 2026 inline limit of §13.3; 20 MB is the old one). */
  inlineLimitBytes?: number;
  /** Print one line per request (method, path without query, status). */
  log?: boolean;
  /** Model ids served (default {@link DEFAULT_MODEL_IDS}); others answer the §11.2 404. */
  models?: string[];
  /** Extra model ids served on top of `models`. */
  extraModels?: string[];
  /** GETs that still report a non-image file as PROCESSING after upload (default 1; 0 = ACTIVE at once). */
  fileProcessingPolls?: number;
  /** Largest file upload accepted (default 2 GiB). */
  maxFileBytes?: number;
  /** Requests kept in `requests` before the oldest half is dropped (default 10 000). */
  maxRecordedRequests?: number;
  /** Vertex AI paths, the metadata server and the OAuth token endpoint (vertex.ts, google-auth.ts). */
  vertex?: VertexEmulatorOptions & GoogleAuthEmulatorOptions;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:8788`. */
  url: string;
  port: number;
  /** Every request received (control-API calls excluded), oldest first. */
  requests: RecordedRequest[];
  /** Queues scripted replies, consumed FIFO by generate/stream/countTokens calls they match. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Clears queued replies, recorded requests and stored files. */
  reset(): void;
  close(): Promise<void>;
  /** Uploaded files by id (read-only use in tests). */
  files: FileStore;
  /** The metadata server and token endpoint: tokens issued, lifetimes and failures to script. */
  googleAuth: GoogleAuthEmulator;
}

const MODELS_PREFIX = '/v1beta/models/';
const FILES_PREFIX = '/v1beta/files/';
const UPLOAD_PATH = '/upload/v1beta/files';
const CONTROL_PREFIX = '/__emulator/';
const MODEL_RPCS = new Set(['generateContent', 'streamGenerateContent', 'countTokens', 'embedContent', 'batchEmbedContents']);
const EMBED_RPCS = new Set(['embedContent', 'batchEmbedContents']);
const KNOWN_UNIMPLEMENTED = new Set(['batchGenerateContent', 'predict']);

class PayloadTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new PayloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.removeAllListeners('data');
        reject(new PayloadTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function recordHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

type ParsedBody = { ok: true; value: unknown } | { ok: false };

function parseJsonBody(raw: Buffer): ParsedBody {
  if (raw.length === 0) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
  } catch {
    return { ok: false };
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts an emulator and resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const catalog = buildModelCatalog([...(options.models ?? DEFAULT_MODEL_IDS), ...(options.extraModels ?? [])]);
  const validKeys = options.apiKeys ? new Set(options.apiKeys) : undefined;
  const inlineLimit = options.inlineLimitBytes ?? 100 * 1000 * 1000;
  const maxRecords = options.maxRecordedRequests ?? 10_000;
  const queue = new ReplyQueue();
  const files = new FileStore({
    ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
    ...(options.fileProcessingPolls !== undefined ? { processingPolls: options.fileProcessingPolls } : {}),
  });
  let responseCounter = 0;
  // Context caches: only models that serve generateContent can hold one; their size is counted
  // like a prompt (§14.1 rule), tools included as their JSON.
  const caches = new CacheStore(
    (id) => catalog.get(id)?.supportedGenerationMethods.includes('createCachedContent') ?? false,
    (parsed) => countPrompt(parsed as WireRequest).total + (parsed.tools ? tokensOf(JSON.stringify(parsed.tools).length) : 0),
  );
  const googleAuth = new GoogleAuthEmulator(options.vertex);

  const emulator: Emulator = {
    url: '',
    port: 0,
    requests: [],
    files,
    googleAuth,
    enqueue: (...replies) => queue.push(...replies),
    reset: () => {
      queue.clear();
      emulator.requests.length = 0;
      files.clear();
      caches.clear();
      responseCounter = 0;
    },
    close: () => Promise.resolve(),
  };

  const record = (r: RecordedRequest) => {
    if (emulator.requests.length >= maxRecords) emulator.requests.splice(0, Math.ceil(maxRecords / 2));
    emulator.requests.push(r);
  };

  const nextResponseId = () => {
    responseCounter++;
    return `emu${responseCounter.toString(36).padStart(19, '0')}`;
  };

  /** §12: the key from `x-goog-api-key`, `?key=` or `Authorization: Bearer`; null when it is fine. */
  const authError = (req: IncomingMessage, query: URLSearchParams | undefined): GoogleErrorBody | null => {
    let key = req.headers['x-goog-api-key'] as string | undefined;
    if (key === undefined) key = query?.get('key') ?? undefined;
    if (key === undefined) {
      const auth = req.headers.authorization;
      if (auth?.startsWith('Bearer ')) key = auth.slice(7);
    }
    if (key === undefined) return missingKeyError();
    if (key === '' || (validKeys && !validKeys.has(key))) return invalidKeyError();
    return null;
  };

  async function handleModelCall(
    req: IncomingMessage,
    res: ServerResponse,
    rec: RecordedRequest,
    model: string,
    rpc: string,
    query: URLSearchParams | undefined,
    body: unknown,
  ): Promise<void> {
    // An unknown model, or one that does not serve this method (an embedding model asked to
    // generate, a chat model asked to embed), gets the same §11.2 404.
    const entry = catalog.get(model);
    if (!entry?.supportedGenerationMethods.includes(methodFor(rpc))) {
      writeJson(res, 404, modelNotFoundError(model, rpc));
      return;
    }
    if (EMBED_RPCS.has(rpc)) return handleEmbed(req, res, rec, model, rpc, body);
    const isCount = rpc === 'countTokens';
    const stream = rpc === 'streamGenerateContent';
    const sse = stream && query?.get('alt') === 'sse';
    const checked = isCount ? validateCountTokensRequest(body, model, files.state) : validateGenerateRequest(body, model, files.state, stream);
    if (!checked.ok) {
      writeJson(res, checked.error.error.code, checked.error);
      return;
    }
    let cachedTokens = 0;
    const cacheName = isCount ? undefined : checked.value.cachedContent;
    if (cacheName !== undefined) {
      const conflict = cacheConflict(checked.value);
      const found = conflict ? undefined : caches.lookup(cacheName, model);
      const error = conflict ?? (found && !found.ok ? found.error : undefined);
      if (error) {
        writeJson(res, error.error.code, error);
        return;
      }
      if (found?.ok) cachedTokens = found.value.tokens;
    }

    const reply = queue.take(rec);
    if (reply) {
      if ('delayMs' in reply && reply.delayMs) await sleep(reply.delayMs);
      if (res.destroyed) return;
      if (isDropReply(reply)) {
        req.socket.destroy();
        return;
      }
      if (isRawReply(reply)) {
        await writeRaw(res, reply.status ?? 200, reply.raw, reply.headers);
        return;
      }
      if (isJsonReply(reply)) {
        if (stream && reply.status === 200) await writeStream(res, sse, [{ data: reply.body }], 'clean', reply.headers);
        else writeJson(res, reply.status, reply.body, reply.headers);
        return;
      }
      if (isStreamReply(reply)) {
        if (!stream) {
          writeJson(res, 500, googleError(500, `Emulator script error: a chunks reply was consumed by a non-streaming ${rpc} call.`));
          return;
        }
        await writeStream(res, sse, reply.chunks, reply.end ?? 'clean', reply.headers);
        return;
      }
      // `{ delayMs }` alone: the default answer, after the delay.
    }

    if (isCount) {
      const prompt = countPrompt(checked.value);
      const out: Record<string, unknown> = { totalTokens: prompt.total };
      if (prompt.details.length > 0) out.promptTokensDetails = prompt.details;
      writeJson(res, 200, out);
      return;
    }
    const responseId = nextResponseId();
    const answer = buildDefaultAnswer(checked.value, model, responseId);
    if (cachedTokens) answer.cachedTokens = cachedTokens;
    // The served tier also comes as a header on unary answers (gemini-more-fields §9).
    const tierHeader = answer.serviceTier ? { 'x-gemini-service-tier': answer.serviceTier } : undefined;
    if (stream) {
      const chunks = answerToChunks(answer, model, responseId).map((data) => ({ data }));
      await writeStream(res, sse, chunks);
    } else {
      writeJson(res, 200, answerToResponse(answer, model, responseId), tierHeader);
    }
  }

  async function handleEmbed(
    req: IncomingMessage,
    res: ServerResponse,
    rec: RecordedRequest,
    model: string,
    rpc: string,
    body: unknown,
  ): Promise<void> {
    const batch = rpc === 'batchEmbedContents';
    const checked = batch ? validateBatchEmbedRequest(body, model) : validateEmbedRequest(body, model);
    if (!checked.ok) {
      writeJson(res, checked.error.error.code, checked.error);
      return;
    }
    const requests = Array.isArray(checked.value) ? checked.value : [checked.value];
    const reply = queue.take(rec);
    if (reply) {
      if ('delayMs' in reply && reply.delayMs) await sleep(reply.delayMs);
      if (res.destroyed) return;
      if (isDropReply(reply)) {
        req.socket.destroy();
        return;
      }
      if (isJsonReply(reply)) {
        writeJson(res, reply.status, reply.body, reply.headers);
        return;
      }
      if (isStreamReply(reply)) {
        writeJson(res, 500, googleError(500, `Emulator script error: a chunks reply was consumed by a ${rpc} call.`));
        return;
      }
    }
    writeJson(res, 200, batch ? batchEmbedResponse(requests) : embedResponse(requests[0]!));
  }

  const vertex = createVertexRoutes(googleAuth, [...catalog.list.map((m) => String(m.name).replace(/^models\//, ''))], handleModelCall, options.vertex);

  async function handleControl(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const action = path.slice(CONTROL_PREFIX.length);
    if (action === 'requests' && req.method === 'GET') {
      writeJson(res, 200, emulator.requests);
      return;
    }
    if (action === 'reset' && req.method === 'POST') {
      req.resume();
      emulator.reset();
      writeJson(res, 200, {});
      return;
    }
    if (action === 'replies' && req.method === 'POST') {
      const parsed = parseJsonBody(await readBody(req, inlineLimit));
      if (!parsed.ok) {
        writeJson(res, 400, { error: 'body must be JSON: a reply or an array of replies' });
        return;
      }
      const list = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
      for (const r of list) {
        const problem = checkReplyShape(r);
        if (problem) {
          writeJson(res, 400, { error: problem });
          return;
        }
      }
      queue.push(...(list as ScriptedReply[]));
      writeJson(res, 200, { queued: list.length, pending: queue.size });
      return;
    }
    if (action === 'google-auth/tokens' && req.method === 'GET') {
      writeJson(res, 200, { tokens: googleAuth.issued });
      return;
    }
    if (action === 'google-auth' && req.method === 'POST') {
      // `{"token_lifetimes":[s,…],"fail_next":[{"source":"metadata"|"oauth","status":n},…]}`
      const parsed = parseJsonBody(await readBody(req, inlineLimit));
      const v = (parsed.ok ? parsed.value : undefined) as { token_lifetimes?: unknown; fail_next?: unknown } | undefined;
      const lifetimes = v?.token_lifetimes ?? [];
      const failures = v?.fail_next ?? [];
      if (!Array.isArray(lifetimes) || !lifetimes.every((x) => typeof x === 'number') || !Array.isArray(failures)) {
        writeJson(res, 400, { error: 'body: {"token_lifetimes": [seconds…], "fail_next": [{"source","status"}…]}' });
        return;
      }
      googleAuth.scriptTokenLifetimes(...(lifetimes as number[]));
      for (const f of failures as Array<{ source?: unknown; status?: unknown }>) {
        if ((f.source === 'metadata' || f.source === 'oauth') && typeof f.status === 'number') googleAuth.failNextTokenRequest(f.source, f.status);
      }
      writeJson(res, 200, {});
      return;
    }
    writeJson(res, 404, { error: `unknown control route ${req.method} ${path}` });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = q < 0 ? undefined : new URLSearchParams(rawUrl.slice(q + 1));
    const method = req.method ?? 'GET';

    if (path.startsWith(CONTROL_PREFIX)) return handleControl(req, res, path);

    const rec: RecordedRequest = { method, path: rawUrl, headers: recordHeaders(req), body: undefined, bodyBytes: 0, receivedAtMs: Date.now() };
    record(rec);
    const baseUrl = `http://${req.headers.host ?? emulator.url.slice(7)}`;
    if (googleAuth.matches(path)) return googleAuth.handle(req, res, path, query);

    // Upload chunks (§13.1 steps 2–3) are authorised by their upload id and streamed, never buffered.
    const uploadId = path === UPLOAD_PATH ? query?.get('upload_id') : null;
    if (uploadId) {
      rec.bodyBytes = await files.chunk(req, res, uploadId, baseUrl);
      return;
    }

    let body: unknown;
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
      let raw: Buffer;
      try {
        raw = await readBody(req, inlineLimit);
      } catch (e) {
        if (e instanceof PayloadTooLarge) {
          writeJson(res, 400, googleError(400, `Request payload size exceeds the limit: ${inlineLimit} bytes.`), { connection: 'close' });
          req.resume();
          return;
        }
        throw e;
      }
      rec.bodyBytes = raw.length;
      const parsed = parseJsonBody(raw);
      rec.body = parsed.ok ? parsed.value : raw.toString('utf8');
      if (!parsed.ok) {
        writeJson(res, 400, googleError(400, 'Invalid JSON payload received. Unexpected token.'));
        return;
      }
      body = parsed.value;
    } else {
      req.resume();
    }

    if (vertex.matches(path)) return vertex.handle(req, res, rec, path, query, body);

    const authFailure = authError(req, query);
    if (authFailure) {
      writeJson(res, authFailure.error.code, authFailure);
      return;
    }

    if (path.startsWith(MODELS_PREFIX)) {
      const rest = path.slice(MODELS_PREFIX.length);
      const colon = rest.indexOf(':');
      if (colon >= 0) {
        const model = decodeURIComponent(rest.slice(0, colon));
        const rpc = rest.slice(colon + 1);
        rec.model = model;
        rec.rpc = rpc;
        if (method === 'POST' && MODEL_RPCS.has(rpc)) return handleModelCall(req, res, rec, model, rpc, query, body);
        if (method === 'POST' && KNOWN_UNIMPLEMENTED.has(rpc)) {
          writeJson(res, 501, googleError(501, `Method ${rpc} is not implemented by the sidegate emulator.`));
          return;
        }
      } else if (method === 'GET') {
        const model = decodeURIComponent(rest);
        const m = catalog.get(model);
        if (m) writeJson(res, 200, m);
        else writeJson(res, 404, modelNotFoundError(model, 'get'));
        return;
      }
    } else if (path === '/v1beta/models' && method === 'GET') {
      const size = Math.min(1000, Number(query?.get('pageSize') ?? 50) || 50);
      const token = query?.get('pageToken');
      const from = token ? Number(Buffer.from(token, 'base64url').toString()) || 0 : 0;
      const out: Record<string, unknown> = { models: catalog.list.slice(from, from + size) };
      if (from + size < catalog.list.length) out.nextPageToken = Buffer.from(String(from + size)).toString('base64url');
      writeJson(res, 200, out);
      return;
    } else if (path === CACHES_PATH || path.startsWith(`${CACHES_PATH}/`)) {
      const answer = caches.handle(method, path, query, body);
      writeJson(res, answer.status, answer.body);
      return;
    } else if (path === UPLOAD_PATH && method === 'POST') {
      files.start(req, res, body, baseUrl);
      return;
    } else if (path === '/v1beta/files' && method === 'GET') {
      writeJson(res, 200, files.list(Number(query?.get('pageSize') ?? 10), query?.get('pageToken') ?? null));
      return;
    } else if (path.startsWith(FILES_PREFIX)) {
      const id = path.slice(FILES_PREFIX.length);
      if (method === 'GET') {
        const f = files.get(id);
        if (f) writeJson(res, 200, f);
        else writeJson(res, 403, fileNotFound(id));
        return;
      }
      if (method === 'DELETE') {
        if (files.delete(id)) writeJson(res, 200, {});
        else writeJson(res, 403, fileNotFound(id));
        return;
      }
    }
    writeJson(res, 404, googleError(404, `The requested URL ${path} was not found on this server.`));
  }

  const server = createServer((req, res) => {
    if (options.log) {
      res.on('finish', () => {
        const url = req.url ?? '';
        const q = url.indexOf('?');
        console.log(`emulator ${req.method} ${q < 0 ? url : url.slice(0, q)} → ${res.statusCode}`);
      });
    }
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) writeJson(res, 500, googleError(500, `Emulator failure: ${err instanceof Error ? err.message : String(err)}`));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  emulator.port = addr.port;
  emulator.url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${addr.port}`;
  emulator.close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });
  return emulator;
}
