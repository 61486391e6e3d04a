/**
 * The POST of a streamed upstream attempt, its answer handed over piece by piece by a dispatch
 * handler of our own: the bytes go from undici's parser into a short queue the provider reads,
 * with no Node stream between (the streamed sibling of `whole-answer.ts`).
 *
 * Why: undici's `request` hands every answer over as a `Readable`, and a stream read through one
 * costs the stream's construction, the request's promise and async resource, and on every piece a
 * push, a `readable` event and the async iterator's promise, all before the first byte of the
 * answer can be written (docs/performance.md, issue 25 forty-first round).
 *
 * Same contract as `postJson` followed by `for await` over the body: the attempt clock starts
 * when the request is written and stops when headers arrive; the client going away or the attempt
 * timing out aborts the call; a failure before headers is mapped through `AttemptControl.toError`
 * here, one after them is thrown by `read()` as undici gave it (the provider maps it as a body
 * failure). The attempt's control is disposed here when the call ends without a body to read (a
 * failure before headers, an error answer); with one, the reader disposes it when done. A queue past `HIGH_WATER_BYTES` pauses the connection until the reader catches up, as a
 * `Readable`'s high-water mark did. An error answer (status ≥ 300) is read whole, within the answer
 * cap and counted in the in-flight budget while it is, and resolves once complete; a body that
 * cannot be read (too large, cut, timed out) leaves `text` empty: its status alone is still worth
 * reporting.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from '../http-client.js';
import type { AttemptControl } from './attempt-control.js';
import type { AnswerLimits } from './post-json.js';
import { AttemptDispatchHandler, headerOf, jsonPost } from './attempt-dispatch.js';

/** Bytes queued unread before the connection is paused: a `Readable`'s default high-water mark. */
const HIGH_WATER_BYTES = 64 * 1024;

export type StreamedAnswer =
  | { ok: true; statusCode: number; header(name: string): string | undefined; body: StreamedBody }
  | { ok: false; statusCode: number; header(name: string): string | undefined; text: string };

export function postJsonForStream(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  control: AttemptControl,
  dispatcher: Dispatcher,
  limits: AnswerLimits,
): Promise<StreamedAnswer> {
  const post = jsonPost(url, body, headers);
  return new Promise<StreamedAnswer>((resolve, reject) => {
    const handler = new StreamedAnswerHandler(control, limits, post.body, resolve, reject);
    try {
      dispatcher.dispatch(post, handler);
    } catch (err) {
      handler.onError(err as Error); // as undici's `request` did: a refused dispatch is a failed call
    }
  });
}

/**
 * A streamed answer's body, read by one consumer. `read()` returns the next piece at once when
 * one is queued, else a promise of it; `undefined` is the end. A failure of the call is thrown
 * (or rejected) once the queued pieces are read.
 */
export class StreamedBody {
  private readonly pieces: Buffer[] = [];
  private queuedBytes = 0;
  private ended = false;
  private failure: unknown;
  private waiter: { resolve(piece: Buffer | undefined): void; reject(err: unknown): void } | undefined;
  private paused = false;

  constructor(
    /** Aborts the call. */
    private readonly stop: () => void,
    /** Given by undici with the headers: lets a paused connection go on. */
    private readonly resumeConnection: () => void,
  ) {}

  read(): Buffer | undefined | Promise<Buffer | undefined> {
    const piece = this.pieces.shift();
    if (piece !== undefined) {
      this.queuedBytes -= piece.length;
      if (this.paused && this.queuedBytes < HIGH_WATER_BYTES) {
        this.paused = false;
        this.resumeConnection();
      }
      return piece;
    }
    if (this.failure !== undefined) throw this.failure;
    if (this.ended) return undefined;
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** The reader is done with it (the client went away, or the stream failed): the call is aborted. */
  destroy(): void {
    if (this.ended) return;
    this.ended = true;
    this.pieces.length = 0;
    this.queuedBytes = 0;
    this.stop();
  }

  /** @internal From the handler: false when the connection should pause. */
  push(piece: Buffer): boolean {
    if (this.ended) return true;
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter.resolve(piece);
      return true;
    }
    this.pieces.push(piece);
    this.queuedBytes += piece.length;
    if (this.queuedBytes < HIGH_WATER_BYTES) return true;
    this.paused = true;
    return false;
  }

  /** @internal */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve(undefined);
  }

  /** @internal */
  fail(err: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.failure = err;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(err);
  }
}

/** undici's (legacy) dispatch handler for one streamed answer; settles its promise exactly once. */
class StreamedAnswerHandler extends AttemptDispatchHandler implements Dispatcher.DispatchHandler {
  private body: StreamedBody | undefined;
  /** An error answer's body, read whole. */
  private readonly errorChunks: Buffer[] = [];
  private errorSize = 0;
  private errorBodyDropped = false;
  private settled = false;

  constructor(
    control: AttemptControl,
    limits: AnswerLimits,
    requestBody: string | Readable,
    private readonly resolve: (answer: StreamedAnswer) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    super(control, limits, requestBody);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null, resume: () => void): boolean {
    if (statusCode < 200) return true; // 1xx: the answer is still to come
    this.headersArrived(statusCode, rawHeaders);
    if (statusCode >= 300) return true; // read whole, then settled in finishError
    this.settled = true;
    const body = new StreamedBody(() => this.control.abort(), resume);
    this.body = body;
    const raw = this.rawHeaders;
    this.resolve({ ok: true, statusCode, header: (name) => headerOf(raw, name), body });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.body !== undefined) return this.body.push(chunk);
    if (this.errorBodyDropped) return true;
    this.errorSize += chunk.length;
    if (this.errorSize > this.limits.maxBytes) {
      this.errorBodyDropped = true;
      this.releaseHeld();
      this.abortCall?.(new Error('the upstream error answer is past its cap'));
      return false;
    }
    this.hold(chunk);
    this.errorChunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.stopWatchingAbort();
    if (this.body !== undefined) this.body.end();
    else this.finishError();
  }

  onError(err: Error): void {
    this.stopWatchingAbort();
    this.destroyRequestBody(err);
    if (this.body !== undefined) {
      this.body.fail(err);
    } else if (this.statusCode >= 300) {
      this.errorBodyDropped = true;
      this.finishError();
    } else if (!this.settled) {
      this.settled = true;
      this.control.dispose();
      this.reject(this.control.toError(err, 'connect'));
    }
  }

  private finishError(): void {
    if (this.settled) return;
    this.settled = true;
    const text = this.errorBodyDropped ? '' : Buffer.concat(this.errorChunks).toString('utf8');
    this.releaseHeld();
    this.control.dispose();
    const raw = this.rawHeaders;
    this.resolve({ ok: false, statusCode: this.statusCode, header: (name) => headerOf(raw, name), text });
  }
}
