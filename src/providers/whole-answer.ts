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
import type { Readable } from 'node:stream';
import type { Dispatcher } from '../http-client.js';
import type { AttemptControl } from './attempt-control.js';
import { AttemptDispatchHandler, headerOf, jsonPost } from './attempt-dispatch.js';
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

/** undici's (legacy) dispatch handler for one whole answer; settles its promise exactly once. */
class WholeAnswerHandler extends AttemptDispatchHandler implements Dispatcher.DispatchHandler {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** An error answer's body past its cap: no more of it is kept, and the answer is its status alone. */
  private bodyDropped = false;
  private settled = false;

  constructor(
    control: AttemptControl,
    limits: AnswerLimits,
    requestBody: string | Readable,
    private readonly resolve: (answer: WholeAnswer) => void,
    private readonly reject: (err: unknown) => void,
  ) {
    super(control, limits, requestBody);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null): boolean {
    if (statusCode < 200) return true; // 1xx: the answer is still to come
    this.headersArrived(statusCode, rawHeaders);
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
    this.hold(chunk);
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    this.finish();
  }

  onError(err: Error): void {
    this.destroyRequestBody(err);
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
    this.stopWatchingAbort();
    if (this.bodyDropped) this.releaseHeld();
    const { chunks, rawHeaders } = this;
    const body = this.bodyDropped ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.resolve({ statusCode: this.statusCode, body, header: (name) => headerOf(rawHeaders, name), release: () => this.releaseHeld() });
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.stopWatchingAbort();
    this.releaseHeld();
    this.reject(err);
  }
}
