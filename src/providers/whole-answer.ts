/**
 * The POST of a non-streamed upstream attempt, its answer read whole by a dispatch handler of
 * our own: the bytes go from undici's parser into one list, with no response stream between.
 *
 * Why: undici's `request` hands every answer over as a Node `Readable`, and reading one to its
 * end costs the stream's construction, a push and a `data` event per chunk, an `end` and a
 * `close` on later ticks and four listeners, besides the promise and the async resource of
 * `request` itself, on every non-streamed chat completion (docs/performance.md, issue 25
 * thirty-third round). A stream's answer is read as it arrives, by `streamed-answer.ts`.
 *
 * Same contract as `postJson` followed by `readAnswer`: the attempt clock starts when the
 * request is written and stops when headers arrive; the client going away or the attempt timing
 * out aborts the call; undici's failures become our errors (`AttemptControl.toError`); the
 * answer's bytes count in the in-flight budget until `release()`, and an answer past its cap is
 * a 502 `answer_too_large` before more of it is held. An error answer (status ≥ 300) whose body
 * cannot be read (too large, cut, timed out) resolves with an empty body: its status alone is
 * still worth reporting.
 */
import { Readable } from 'node:stream';
import { splitUrl, type Dispatcher } from '../http-client.js';
import { serializedLength, serializeJsonBody } from '../openai/inline-blobs.js';
import { ANSWER_WEIGHT } from '../overload/inflight-budget.js';
import type { AttemptControl } from './attempt-control.js';
import { answerTooLarge, type AnswerLimits } from './post-json.js';

export interface WholeAnswer {
  statusCode: number;
  /** The body; empty for an error answer that could not be read. */
  body: Buffer;
  /** The first value of response header `name` (lower case), if any. */
  header(name: string): string | undefined;
  /** Takes the body's bytes out of the in-flight budget (idempotent). */
  release(): void;
}

export function postJsonForWholeAnswer(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  control: AttemptControl,
  dispatcher: Dispatcher,
  limits: AnswerLimits,
): Promise<WholeAnswer> {
  const post = jsonPost(url, body, headers);
  return new Promise<WholeAnswer>((resolve, reject) => {
    dispatcher.dispatch(post, new WholeAnswerHandler(control, limits, post.body, resolve, reject));
  });
}

/**
 * The dispatch options of a JSON POST: the body with large inline media spliced back in from the
 * client's own body (inline-blobs.ts), and undici's header timer off (the attempt's runs instead).
 */
export function jsonPost(url: string, body: unknown, headers: Record<string, string>): Dispatcher.DispatchOptions & { body: string | Readable } {
  const payload = serializeJsonBody(body);
  const { origin, path } = splitUrl(url);
  const requestHeaders: Record<string, string> = Object.assign({}, headers, { 'content-type': 'application/json' });
  if (typeof payload !== 'string') requestHeaders['content-length'] = String(serializedLength(payload));
  const requestBody = typeof payload === 'string' ? payload : Readable.from(payload);
  return { origin, path, method: 'POST', headers: requestHeaders, body: requestBody, headersTimeout: 0 };
}

/** A failed call's request body, if it is a stream still sending: destroyed, its late errors swallowed. */
export function destroyRequestBody(requestBody: string | Readable, err: Error): void {
  if (typeof requestBody !== 'string' && !requestBody.destroyed) {
    requestBody.on('error', () => {});
    requestBody.destroy(err);
  }
}

/** undici's (legacy) dispatch handler for one whole answer; settles its promise exactly once. */
class WholeAnswerHandler implements Dispatcher.DispatchHandler {
  private abortCall: ((err?: Error) => void) | undefined;
  private abortReason: Error | undefined;
  private statusCode = 0;
  private rawHeaders: Array<Buffer | string> = [];
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private held = 0;
  /** An error answer's body past its cap: no more of it is kept, and the answer is its status alone. */
  private bodyDropped = false;
  private settled = false;
  private readonly onAbort = (): void => {
    this.abortReason ??= new Error('the upstream call was aborted');
    this.abortCall?.(this.abortReason);
  };

  constructor(
    private readonly control: AttemptControl,
    private readonly limits: AnswerLimits,
    private readonly requestBody: string | Readable,
    private readonly resolve: (answer: WholeAnswer) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    if (control.signal.aborted) this.onAbort();
    else control.signal.once('abort', this.onAbort);
  }

  /** undici calls it on the connection, just before writing the request: the attempt clock starts. */
  onConnect(abort: (err?: Error) => void): void {
    if (this.abortReason !== undefined) {
      abort(this.abortReason);
      return;
    }
    this.abortCall = abort;
    this.control.requestWritten();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null): boolean {
    if (statusCode < 200) return true; // 1xx: the answer is still to come
    this.statusCode = statusCode;
    this.rawHeaders = rawHeaders ?? [];
    this.control.headersArrived();
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.bodyDropped || this.settled) return true;
    this.size += chunk.length;
    if (this.size > this.limits.maxBytes) {
      if (this.statusCode >= 300) this.bodyDropped = true;
      else this.fail(answerTooLarge(this.limits));
      this.abortCall?.(new Error('the upstream answer is past its cap'));
      return false;
    }
    this.limits.budget?.hold(chunk.length * ANSWER_WEIGHT);
    this.held += chunk.length * ANSWER_WEIGHT;
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.finish();
  }

  onError(err: Error): void {
    destroyRequestBody(this.requestBody, err);
    if (this.statusCode >= 300) {
      this.bodyDropped = true;
      this.finish();
    } else {
      this.fail(this.control.toError(err, this.statusCode === 0 ? 'connect' : 'body'));
    }
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    this.control.signal.off('abort', this.onAbort);
    if (this.bodyDropped) this.releaseHeld();
    const { chunks, rawHeaders } = this;
    const body = this.bodyDropped ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.resolve({ statusCode: this.statusCode, body, header: (name) => headerOf(rawHeaders, name), release: () => this.releaseHeld() });
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.control.signal.off('abort', this.onAbort);
    this.releaseHeld();
    this.reject(err);
  }

  private releaseHeld(): void {
    this.limits.budget?.release(this.held);
    this.held = 0;
  }
}

/** The first value of header `name` in undici's raw list (name, value, name, value, …). */
export function headerOf(raw: Array<Buffer | string>, name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toString().toLowerCase() === name) return raw[i + 1]!.toString();
  }
  return undefined;
}
