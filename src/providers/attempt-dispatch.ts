/**
 * What the two dispatch handlers of an upstream POST share (`whole-answer.ts` reads an answer
 * whole, `streamed-answer.ts` piece by piece): the JSON POST's dispatch options, the attempt's
 * abort wiring and clock start, and the raw-header lookup.
 */
import { Readable } from 'node:stream';
import { splitUrl, type Dispatcher } from '../http-client.js';
import { serializedLength, serializeJsonBody } from '../openai/inline-blobs.js';
import { ANSWER_WEIGHT } from '../overload/inflight-budget.js';
import type { AttemptControl } from './attempt-control.js';
import type { AnswerLimits } from './post-json.js';

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

/**
 * undici's (legacy) dispatch handler of one attempt's call, the part both kinds share: the
 * attempt's abort (the client gone, the attempt timed out) aborts the call, before it is written
 * or after; the attempt clock starts when undici writes the request and stops at the headers; the
 * answer's bytes a handler keeps count in the in-flight budget until it releases them.
 */
export abstract class AttemptDispatchHandler {
  /** undici's abort of this call, once it is on a connection. */
  protected abortCall: ((err?: Error) => void) | undefined;
  /** 0 until the answer's headers arrive. */
  protected statusCode = 0;
  protected rawHeaders: Array<Buffer | string> = [];
  private held = 0;
  private abortReason: Error | undefined;
  private readonly onAbort = (): void => {
    this.abortReason ??= new Error('the upstream call was aborted');
    this.abortCall?.(this.abortReason);
  };

  constructor(
    protected readonly control: AttemptControl,
    protected readonly limits: AnswerLimits,
    private readonly requestBody: string | Readable,
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

  /** An answer's headers (not a 1xx): the attempt clock stops. */
  protected headersArrived(statusCode: number, rawHeaders: Buffer[] | string[] | null): void {
    this.statusCode = statusCode;
    this.rawHeaders = rawHeaders ?? [];
    this.control.headersArrived();
  }

  /** Counts a kept piece of the answer in the in-flight budget. */
  protected hold(chunk: Buffer): void {
    this.limits.budget?.hold(chunk.length * ANSWER_WEIGHT);
    this.held += chunk.length * ANSWER_WEIGHT;
  }

  /** Takes what `hold` counted out of the budget (idempotent). */
  protected releaseHeld(): void {
    this.limits.budget?.release(this.held);
    this.held = 0;
  }

  /** The call is over (answered or failed): the attempt's abort no longer concerns it. */
  protected stopWatchingAbort(): void {
    this.control.signal.off('abort', this.onAbort);
  }

  /** A failed call's request body, if it is a stream still sending: destroyed, its late errors swallowed. */
  protected destroyRequestBody(err: Error): void {
    const body = this.requestBody;
    if (typeof body !== 'string' && !body.destroyed) {
      body.on('error', () => {});
      body.destroy(err);
    }
  }
}

/** The first value of header `name` in undici's raw list (name, value, name, value, …). */
export function headerOf(raw: Array<Buffer | string>, name: string): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toString().toLowerCase() === name) return raw[i + 1]!.toString();
  }
  return undefined;
}
