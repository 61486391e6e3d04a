/**
 * The Gemini `Provider`: the only file in `providers/gemini` that does I/O. It resolves media
 * (file metadata, optional URL fetches), translates with the pure converters, calls
 * `generateContent` (its answer read whole by `whole-answer.ts`'s dispatch handler) and
 * `streamGenerateContent?alt=sse` (its answer read piece by piece by `streamed-answer.ts`'s) over
 * a keep-alive dispatcher (DESIGN Decision 14), and maps every failure to an `UpstreamError`.
 *
 * - the provider key goes only in `x-goog-api-key`, only to `target.baseUrl`; never in a URL or a
 *   message;
 * - the per-attempt timeout runs until response headers arrive (Decision 6) → 504 `timeout`;
 *   refused/reset/dropped connections → 502 `connection_error`; a client abort → `ClientAbortError`;
 * - streams are parsed incrementally and relayed chunk by chunk; a drop mid-stream throws from
 *   the iterator, and `return()` on the iterator aborts the upstream call.
 *
 * Safe to rerun: every call translates from the original request; the only shared state is the
 * dispatcher and a bounded cache of file MIME types.
 */
import { createUpstreamAgent, request as undiciRequest, type Dispatcher } from '../../http-client.js';
import { asAbortSignal, type ClientSignal } from '../../client-signal.js';
import { ClientAbortError, GatewayError, InvalidRequestError, UpstreamError } from '../../errors.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import type { ChatCompletionChunk } from '../../openai/chat-response.js';
import type {
  CallOutcome,
  ChatResult,
  EmbedCall,
  EmbedResult,
  Provider,
  ProviderCall,
  ProviderModel,
  StreamResult,
  Target,
} from '../provider.js';
import { AttemptControl } from '../attempt-control.js';
import { getJsonPages, postJson, readErrorText, readJsonAnswer, answerLimitsFrom } from '../post-json.js';
import { postJsonForWholeAnswer } from '../whole-answer.js';
import { postJsonForStream, type StreamedBody } from '../streamed-answer.js';
import type { InflightBudget } from '../../overload/inflight-budget.js';
import { scrubProviderErrors } from '../scrub-provider-errors.js';
import { convertRequest, targetModel, type GeminiRequestBody } from './convert-request.js';
import { convertEmbedRequest } from './convert-embed-request.js';
import { convertEmbedResponse } from './convert-embed-response.js';
import { convertModelList } from './convert-model-list.js';
import { convertResponse } from './convert-response.js';
import { parseGeminiError, upstreamErrorFromObject } from './errors.js';
import { fileIdUrl, mediaLookupKind, providerFileId, type ResolvedMedia } from './media.js';
import { SseParser } from '../sse-parser.js';
import { GeminiStreamTranslator } from './stream.js';
import { createGeminiFilesClient, type GeminiFilesClient } from './gemini-files-client.js';

/** Fetches a public media URL (SSRF-guarded by its implementer) for inlining. */
export type FetchMedia = (url: string, signal: ClientSignal) => Promise<{ mimeType: string; data: string }>;

export interface GeminiProviderOptions {
  /** Keep-alive dispatcher for upstream calls; default a shared undici `Agent`. */
  dispatcher?: Dispatcher;
  /**
   * The request function (undici's `request` by default) of embeddings, model lists and the
   * files API; tests may wrap it. A chat completion, streamed or not, does not use it: it
   * dispatches on `dispatcher` with a handler of its own (`whole-answer.ts`, `streamed-answer.ts`).
   */
  request?: typeof undiciRequest;
  /**
   * Fetches other http(s) media URLs so they can be inlined (Decision 11). Without it those URLs
   * get a 400.
   */
  fetchMedia?: FetchMedia;
  /** Tool-call id prefix (Decision 9); default `call`. */
  idPrefix?: string;
  /** Entries kept in the file-MIME cache; default 1000. */
  fileCacheSize?: number;
  /** Files API client for MIME lookups; default one over this provider's `request` and dispatcher. */
  files?: GeminiFilesClient;
  /** Largest single upstream stream event (`SIDEGATE_MAX_UPSTREAM_EVENT_BYTES`); default 32 MiB. */
  maxEventBytes?: number;
  /** Connections per upstream origin of the default dispatcher (`SIDEGATE_UPSTREAM_MAX_CONNECTIONS`); default 4096. */
  maxConnections?: number;
  /** Longest silence in the middle of an upstream answer (`SIDEGATE_UPSTREAM_TIMEOUT_MS`); default 600 s. */
  bodyIdleTimeoutMs?: number;
  /** Largest non-streamed answer (`SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES`); default 32 MiB. */
  maxAnswerBytes?: number;
  /** In-flight budget answers are counted in. */
  budget?: InflightBudget;
  /**
   * How `generateContent` calls are addressed and authenticated; default AI Studio's
   * (`{baseUrl}/v1beta/models/{model}`, `x-goog-api-key`). The Vertex AI provider passes its own
   * (`providers/vertex/`): the request and response wire is the same.
   */
  wire?: GeminiWire;
}

/** The parts of a `generateContent` call that differ between AI Studio and Vertex AI. */
export interface GeminiWire {
  /** The collection `/{model}:{method}` is appended to. */
  modelsUrl(target: Target): string;
  /** The model's path segment; throws `InvalidRequestError` (param `model`) for a bad id. */
  modelSegment(model: string): string;
  authHeaders(target: Target): Record<string, string>;
  /** Replaces the AI Studio media lookups (files API, URL fetches); throws a 400 naming the part. */
  resolveMedia?(request: ChatCompletionRequest, target: Target): ReadonlyMap<string, ResolvedMedia>;
  /** Last changes to the translated body; may add warnings. */
  finishBody?(body: GeminiRequestBody, request: ChatCompletionRequest, warnings: string[]): GeminiRequestBody;
}

const AI_STUDIO_WIRE: GeminiWire = {
  modelsUrl: (target) => `${trimBase(target.baseUrl)}/v1beta/models`,
  modelSegment: modelPath,
  authHeaders: (target) => ({ 'x-goog-api-key': target.apiKey }),
};

export interface GeminiProvider extends Provider {
  embed(call: EmbedCall): Promise<EmbedResult>;
  listModels(target: Target, signal: ClientSignal): Promise<ProviderModel[]>;
  /** Closes the dispatcher this provider created (not one passed in). */
  close(): Promise<void>;
}

type UndiciResponse = Dispatcher.ResponseData;

/**
 * The OpenAI chunks of one Gemini stream (`streamGenerateContent?alt=sse`), translated as each
 * event arrives; a failure mid-stream throws an `UpstreamError`, and `return()` (the client went
 * away) aborts the upstream call.
 *
 * At module level, with everything it needs as arguments, not a closure inside `chatStream`: a
 * generator function created per call gets its own `prototype` and with it its own initial map,
 * which V8 keeps in the old generation and which points back to that closure, so each stream's
 * whole object graph (request, translator, undici response) survived every scavenge until the next
 * full collection: about 10 KB promoted per stream and 5–7 ms scavenges at 200 streams/s
 * (docs/performance.md, issue 25 fourth round).
 */
async function* geminiChunks(
  body: StreamedBody,
  control: AttemptControl,
  translator: GeminiStreamTranslator,
  maxEventBytes: number | undefined,
): AsyncGenerator<ChatCompletionChunk> {
  const parser = new SseParser({ maxEventBytes });
  let completed = false;
  const translate = (payload: string): ChatCompletionChunk[] => {
    let json: unknown;
    try {
      json = JSON.parse(payload);
    } catch {
      throw new UpstreamError('upstream sent a stream event that is not JSON', { status: 502, reason: 'invalid_response' });
    }
    if (Array.isArray(json) && json.length > 0 && json.every((x) => x !== null && typeof x === 'object' && 'error' in x)) {
      throw upstreamErrorFromObject((json[0] as { error: never }).error);
    }
    return translator.push(json);
  };
  try {
    try {
      for (;;) {
        // A piece already queued is taken without a promise turn.
        let piece = body.read();
        if (piece instanceof Promise) piece = await piece;
        if (piece === undefined) break;
        // `for…of` with `yield`, not `yield*`: delegating to an array from an async generator goes
        // through an async-from-sync iterator, two more promises and turns per chunk.
        for (const payload of parser.push(piece)) for (const chunk of translate(payload)) yield chunk;
      }
    } catch (err) {
      throw control.toError(err, 'body');
    }
    for (const payload of parser.end()) for (const chunk of translate(payload)) yield chunk;
    for (const chunk of translator.finish()) yield chunk;
    completed = true;
  } finally {
    if (!completed) {
      // The client went away (return()) or the stream failed: stop reading upstream.
      body.destroy();
    }
    control.dispose();
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function modelPath(model: string): string {
  const bare = model.startsWith('models/') ? model.slice('models/'.length) : model;
  if (bare === '' || /[/?&#\\]|\.\./.test(bare)) {
    throw new InvalidRequestError(`model: ${JSON.stringify(model)} is not a valid Gemini model id`, { param: 'model' });
  }
  return encodeURIComponent(bare);
}

function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

export function createGeminiProvider(options: GeminiProviderOptions = {}): GeminiProvider {
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createUpstreamAgent(options);
  const answerLimits = answerLimitsFrom(options);
  const send = options.request ?? undiciRequest;
  const idPrefix = options.idPrefix ?? 'call';
  const cacheSize = options.fileCacheSize ?? 1000;
  const fileMimeCache = new Map<string, string>();
  // The one client of Gemini's files resource, over this provider's request function and pool.
  const files = options.files ?? createGeminiFilesClient({ request: send, dispatcher });
  const wire = options.wire ?? AI_STUDIO_WIRE;

  function headers(target: Target, call: { traceHeaders: Record<string, string> }, accept: string): Record<string, string> {
    return Object.assign({}, call.traceHeaders, { 'content-type': 'application/json', accept }, wire.authHeaders(target));
  }

  async function readErrorBody(res: UndiciResponse, target: Target, control: AttemptControl): Promise<UpstreamError> {
    const text = await readErrorText(res, control, answerLimits);
    return parseGeminiError(res.statusCode, text, {
      retryAfterHeader: headerValue(res.headers['retry-after']),
      apiKey: target.apiKey,
    });
  }

  async function fileMimeType(url: string, target: Target, call: ProviderCall): Promise<string> {
    const id = providerFileId(url, target.baseUrl)!;
    const key = `${trimBase(target.baseUrl)}|${id}`;
    const cached = fileMimeCache.get(key);
    if (cached !== undefined) return cached;
    const file = await files.getFile({
      apiKey: target.apiKey,
      baseUrl: trimBase(target.baseUrl),
      id,
      signal: asAbortSignal(call.signal),
      timeoutMs: target.timeoutMs,
      headers: Object.assign({}, call.traceHeaders, { accept: 'application/json' }),
    });
    const mime = file.mimeType;
    if (!mime) throw new UpstreamError('the files API answered without a MIME type', { status: 502, reason: 'invalid_response' });
    if (fileMimeCache.size >= cacheSize) fileMimeCache.delete(fileMimeCache.keys().next().value!);
    fileMimeCache.set(key, mime);
    return mime;
  }

  /**
   * Every lookup media conversion needs, done before the (pure) translation. Synchronous when there
   * is nothing to look up (most requests), so they pay no promise turn for it.
   */
  function resolveMedia(request: ChatCompletionRequest, target: Target, call: ProviderCall): Map<string, ResolvedMedia> | Promise<Map<string, ResolvedMedia>> {
    const media = new Map<string, ResolvedMedia>();
    const jobs: Array<Promise<void>> = [];
    const visit = (url: string, mime: string | undefined): void => {
      if (media.has(url)) return;
      const kind = mediaLookupKind(url, mime, target.baseUrl);
      if (kind === 'file-metadata') {
        media.set(url, { kind: 'file', mimeType: '' });
        jobs.push(fileMimeType(url, target, call).then((mimeType) => void media.set(url, { kind: 'file', mimeType })));
      } else if (kind === 'fetch' && options.fetchMedia) {
        const fetchMedia = options.fetchMedia;
        media.set(url, { kind: 'inline', mimeType: '', data: '' });
        jobs.push(fetchMedia(url, call.signal).then((r) => void media.set(url, { kind: 'inline', ...r })));
      }
    };
    for (const message of request.messages) {
      if (Array.isArray(message.content)) {
        for (const part of message.content) {
          if (part.type === 'image_url') visit(part.image_url.url, part.image_url.mime_type);
          else if (part.type === 'file' && part.file.file_id !== undefined) visit(fileIdUrl(part.file.file_id, target.baseUrl), undefined);
        }
      }
      if (message.role === 'assistant') {
        for (const entry of message.content_parts ?? []) if (entry.type === 'image') visit(entry.image_url.url, undefined);
      }
    }
    return jobs.length === 0 ? media : Promise.all(jobs).then(() => media);
  }

  /** The upstream call of an attempt, translated: where it goes, its body and headers, its control. */
  async function prepare(call: ProviderCall, stream: boolean) {
    const { target } = call;
    const { request } = call; // routing already merged the target's override_params
    const model = targetModel(request, target);
    const path = wire.modelSegment(model);
    let media = wire.resolveMedia ? wire.resolveMedia(request, target) : resolveMedia(request, target, call);
    if (media instanceof Promise) media = await media;
    const converted = convertRequest(request, target, { media });
    const { warnings } = converted;
    const body = wire.finishBody ? wire.finishBody(converted.body, request, warnings) : converted.body;
    const url = `${wire.modelsUrl(target)}/${path}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    const control = new AttemptControl(call.signal, target.timeoutMs, call.onRequestWritten);
    return { url, body, upstreamHeaders: headers(target, call, stream ? 'text/event-stream' : 'application/json'), control, request, warnings };
  }

  async function chat(call: ProviderCall): Promise<ChatResult> {
    const { url, body, upstreamHeaders, control, warnings } = await prepare(call, false);
    try {
      const answer = await postJsonForWholeAnswer(url, body, upstreamHeaders, control, dispatcher, answerLimits);
      try {
        if (answer.statusCode >= 300) {
          throw parseGeminiError(answer.statusCode, answer.body.toString('utf8'), {
            retryAfterHeader: answer.header('retry-after'),
            apiKey: call.target.apiKey,
          });
        }
        let json: unknown;
        try {
          json = JSON.parse(answer.body.toString('utf8'));
        } catch {
          throw new UpstreamError('upstream sent a body that is not JSON', { status: 502, reason: 'invalid_response' });
        }
        const { completion, outcome } = convertResponse(json, {
          model: call.request.model,
          strictCompliance: call.target.strictCompliance,
          idPrefix,
          warnings,
          ...(call.request.audio?.format === 'wav' ? { audioFormat: 'wav' as const } : {}),
        });
        return { status: 200, completion, outcome };
      } finally {
        answer.release();
      }
    } finally {
      control.dispose();
    }
  }

  /** Translates and sends a stream's call; resolves once response headers arrived with a 2xx. */
  async function openStream(call: ProviderCall) {
    const { url, body, upstreamHeaders, control, request, warnings } = await prepare(call, true);
    const answer = await postJsonForStream(url, body, upstreamHeaders, control, dispatcher, answerLimits);
    if (!answer.ok) {
      throw parseGeminiError(answer.statusCode, answer.text, { retryAfterHeader: answer.header('retry-after'), apiKey: call.target.apiKey });
    }
    return { body: answer.body, control, request, warnings };
  }

  async function chatStream(call: ProviderCall): Promise<StreamResult> {
    const { body, control, request, warnings } = await openStream(call);
    const translator = new GeminiStreamTranslator({
      model: call.request.model,
      strictCompliance: call.target.strictCompliance,
      includeUsage: request.stream_options?.include_usage === true,
      idPrefix,
      warnings,
    });

    return { status: 200, chunks: geminiChunks(body, control, translator, options.maxEventBytes), outcome: (): CallOutcome => translator.outcome() };
  }


  /**
   * `batchEmbedContents`, one call per batch of 100 inputs, one after another within the same
   * attempt (the per-attempt timeout applies to each call until its headers arrive).
   */
  async function embed(call: EmbedCall): Promise<EmbedResult> {
    const { target } = call;
    const model = target.model ?? call.request.model;
    const path = modelPath(model);
    const { batches, warnings } = convertEmbedRequest(call.request, model);
    const url = `${trimBase(target.baseUrl)}/v1beta/models/${path}:batchEmbedContents`;
    const answers: unknown[] = [];
    for (const [i, body] of batches.entries()) {
      // The attempt's queue time is reported once, for its first call.
      const control = new AttemptControl(call.signal, target.timeoutMs, i === 0 ? call.onRequestWritten : undefined);
      try {
        const res = await postJson(send, url, body, headers(target, call, 'application/json'), control, dispatcher);
        if (res.statusCode >= 300) throw await readErrorBody(res, target, control);
        answers.push(await readJsonAnswer(res, control, answerLimits));
      } finally {
        control.dispose();
      }
    }
    const { response, outcome } = convertEmbedResponse(answers, {
      model: call.request.model,
      targetModel: model,
      encodingFormat: call.request.encoding_format ?? 'float',
      batchSizes: batches.map((b) => b.requests.length),
      warnings,
    });
    return { status: 200, response, outcome };
  }

  /** `GET /v1beta/models`, following page tokens (at most 20 pages of 1000). */
  async function listModels(target: Target, signal: ClientSignal): Promise<ProviderModel[]> {
    const pages = await getJsonPages(`${trimBase(target.baseUrl)}/v1beta/models`, { accept: 'application/json', 'x-goog-api-key': target.apiKey }, {
      send,
      dispatcher,
      signal,
      timeoutMs: target.timeoutMs,
      limits: answerLimits,
      readError: (res, control) => readErrorBody(res, target, control),
    });
    return convertModelList(pages);
  }

  return scrubProviderErrors({
    name: 'google',
    telemetryName: 'gcp.gemini',
    operationName: 'generate_content',
    chat,
    chatStream,
    embed,
    listModels,
    async close() {
      if (ownDispatcher) await dispatcher.close();
    },
  });
}
