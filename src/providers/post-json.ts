/**
 * The POST of one upstream attempt, shared by every provider: the JSON body with large inline
 * media spliced back in from the client's own body (never re-encoded; inline-blobs.ts), the
 * attempt's abort signal, and undici's failures mapped to our errors. Resolves once response
 * headers arrived, which also stops the attempt's header timeout. Also the paged GET of a model
 * list and the reading of answers, for the same providers.
 */
import { Readable } from 'node:stream';
import { UpstreamError } from '../errors.js';
import { serializedLength, serializeJsonBody } from '../openai/inline-blobs.js';
import { ANSWER_WEIGHT, type InflightBudget } from '../overload/inflight-budget.js';
import type { ClientSignal } from '../client-signal.js';
import { AttemptControl } from './attempt-control.js';
import type { Dispatcher, request } from '../http-client.js';

export async function postJson(
  send: typeof request,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  control: AttemptControl,
  dispatcher: Dispatcher,
): Promise<Dispatcher.ResponseData> {
  const payload = serializeJsonBody(body);
  let res: Dispatcher.ResponseData;
  try {
    res = await send(url, {
      method: 'POST',
      headers: Object.assign(
        {},
        headers,
        typeof payload === 'string'
          ? { 'content-type': 'application/json' }
          : { 'content-type': 'application/json', 'content-length': String(serializedLength(payload)) },
      ),
      body: typeof payload === 'string' ? payload : Readable.from(payload),
      signal: control.signal,
      ...control.undiciTimeouts,
      dispatcher: control.dispatcher(dispatcher),
    });
  } catch (err) {
    control.dispose();
    throw control.toError(err, 'connect');
  }
  control.headersArrived();
  return res;
}

/** What a paged GET needs besides its URL and headers. */
export interface PagedGet {
  send: typeof request;
  dispatcher: Dispatcher;
  signal: ClientSignal;
  timeoutMs: number;
  limits: AnswerLimits;
  /** The error to throw for an answer with status ≥ 300 (the provider's own envelope reading). */
  readError(res: Dispatcher.ResponseData, control: AttemptControl): Promise<Error>;
}

/**
 * GETs `url?pageSize=1000`, then each `nextPageToken` the answer names, for at most `maxPages`
 * pages, each with its own attempt clock; resolves with every page's JSON, in order.
 */
export async function getJsonPages(url: string, headers: Record<string, string>, get: PagedGet, maxPages = 20): Promise<unknown[]> {
  const pages: unknown[] = [];
  let token: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const control = new AttemptControl(get.signal, get.timeoutMs);
    try {
      const query = `pageSize=1000${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
      let res: Dispatcher.ResponseData;
      try {
        res = await get.send(`${url}?${query}`, {
          method: 'GET',
          headers,
          signal: control.signal,
          ...control.undiciTimeouts,
          dispatcher: control.dispatcher(get.dispatcher),
        });
      } catch (err) {
        throw control.toError(err, 'connect');
      }
      control.headersArrived();
      if (res.statusCode >= 300) throw await get.readError(res, control);
      const json = await readJsonAnswer(res, control, get.limits);
      pages.push(json);
      const next = (json as { nextPageToken?: unknown } | null)?.nextPageToken;
      token = typeof next === 'string' && next !== '' ? next : undefined;
    } finally {
      control.dispose();
    }
    if (token === undefined) break;
  }
  return pages;
}

/** How much of a non-streamed answer the gateway holds, and where it counts. */
export interface AnswerLimits {
  /** `SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES`: beyond it the attempt fails with a clear 502. */
  maxBytes: number;
  /** The in-flight budget the answer is counted in while it is read and translated. */
  budget?: InflightBudget;
}

/** A provider's answer limits from its options: 32 MiB unless `maxAnswerBytes` says otherwise. */
export function answerLimitsFrom(options: { maxAnswerBytes?: number | undefined; budget?: InflightBudget | undefined }): AnswerLimits {
  return { maxBytes: options.maxAnswerBytes ?? 32 * 1024 * 1024, ...(options.budget ? { budget: options.budget } : {}) };
}

/** The 502 for an answer past its cap, naming the setting that raises it. */
export function answerTooLarge(limits: AnswerLimits): UpstreamError {
  return new UpstreamError(`the upstream answer is larger than ${limits.maxBytes} bytes (SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES)`, {
    status: 502,
    reason: 'answer_too_large',
    retryable: false,
    code: 'upstream_answer_too_large',
  });
}

/**
 * Reads a whole non-streamed answer (or error body), refusing it past its cap before holding
 * more: a 502 `answer_too_large` that says which setting to raise. The bytes count in the
 * in-flight budget until `release()` (idempotent).
 */
function readAnswer(
  res: Dispatcher.ResponseData,
  control: AttemptControl,
  limits: AnswerLimits,
): Promise<{ body: Buffer; release(): void }> {
  let held = 0;
  const release = () => {
    limits.budget?.release(held);
    held = 0;
  };
  // Handlers on the one promise rather than an async function around it: every answer is read
  // here, and each async layer is another promise and turn per request.
  return collectChunks(res.body, limits, (bytes) => (held += bytes)).then(
    (chunks) => ({ body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), release }),
    (err: unknown) => {
      release();
      throw control.toError(err, 'body');
    },
  );
}

/**
 * An error answer's body as text, or '' when it cannot be read (too large, cut, timed out): the
 * status alone is still worth reporting. Its bytes leave the in-flight budget at once.
 */
export async function readErrorText(res: Dispatcher.ResponseData, control: AttemptControl, limits: AnswerLimits): Promise<string> {
  try {
    const answer = await readAnswer(res, control, limits);
    answer.release();
    return answer.body.toString('utf8');
  } catch {
    return '';
  }
}

/** A whole JSON answer within its limits, released once parsed; a body that is not JSON is a 502. */
export async function readJsonAnswer(res: Dispatcher.ResponseData, control: AttemptControl, limits: AnswerLimits): Promise<unknown> {
  const answer = await readAnswer(res, control, limits);
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    throw new UpstreamError('upstream sent a body that is not JSON', { status: 502, reason: 'invalid_response' });
  } finally {
    answer.release();
  }
}

/**
 * The body's chunks, with plain listeners rather than `for await`: every non-streamed answer is
 * read here, and a Readable's async iterator costs an iterator, an end-of-stream watcher and a
 * promise per chunk (about 3 KB of allocations per answer in a sampling heap profile).
 */
function collectChunks(body: Dispatcher.ResponseData['body'], limits: AnswerLimits, onHeld: (bytes: number) => void): Promise<Buffer[]> {
  // The listeners stay until the body is gone (it is this answer's alone): a promise settles once,
  // and an 'error' after a refusal (the destroy below) still has its listener.
  return new Promise<Buffer[]>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (piece: Buffer) => {
      size += piece.length;
      if (size > limits.maxBytes) {
        body.off('data', onData);
        reject(answerTooLarge(limits));
        body.destroy();
        return;
      }
      limits.budget?.hold(piece.length * ANSWER_WEIGHT);
      onHeld(piece.length * ANSWER_WEIGHT);
      chunks.push(piece);
    };
    let ended = false;
    body.on('data', onData);
    body.on('end', () => {
      ended = true;
      resolve(chunks);
    });
    body.on('error', reject);
    // A body destroyed without an error (the attempt aborted) ends with 'close' and no 'end'.
    // 'close' follows every clean end too: no Error (and its stack trace) is built for those.
    body.on('close', () => {
      if (!ended) reject(new Error('the upstream answer was cut before its end'));
    });
  });
}
