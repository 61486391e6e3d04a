/**
 * Abort wiring of one upstream attempt, shared by every provider: the client's signal (the client
 * went away) plus the per-attempt timeout, which runs only until response headers arrive so a long
 * stream is never cut by it (DESIGN Decision 6). Maps what undici throws to our error types.
 * One instance per attempt; call `dispose()` when the attempt is over.
 *
 * The attempt clock starts when the request is written to a connection, not when it is queued
 * for one (issue 15 item 3): time waiting for a free connection in the pool is the gateway's,
 * not the upstream's, and is reported separately (`onRequestWritten`). undici's own header timer
 * is off (`undiciTimeouts`), and its body timer (silence in the middle of an answer) is set by
 * the providers' agents from `SIDEGATE_UPSTREAM_TIMEOUT_MS`, so no undici default ever fires.
 */
import { EventEmitter } from 'node:events';
import type { ClientSignal } from '../client-signal.js';
import { ClientAbortError, GatewayError, UpstreamError } from '../errors.js';
import type { Dispatcher } from '../http-client.js';

/**
 * The abort signal handed to undici for one attempt. undici accepts an EventEmitter with an
 * `aborted` flag; an AbortController per attempt costs several times more (EventTarget setup),
 * and this runs on every request.
 */
export class AttemptSignal extends EventEmitter {
  aborted = false;

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.emit('abort');
  }
}

export class AttemptControl {
  readonly signal = new AttemptSignal();
  private timedOut = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly onClientAbort = (): void => this.signal.abort();
  private readonly createdAt = performance.now();
  private written = false;

  constructor(
    private readonly clientSignal: ClientSignal,
    readonly timeoutMs: number,
    /** Called once, when the request is written; with the time it waited for a connection. */
    private readonly onRequestWritten?: (queuedMs: number) => void,
  ) {
    if (clientSignal.aborted) this.signal.abort();
    else clientSignal.addEventListener('abort', this.onClientAbort, { once: true });
    // The clock starts when `dispatcher()`'s request is written: every upstream call of an
    // attempt goes through it, and a timer armed here would only be cleared there.
  }

  private startClock(): void {
    if (this.timeoutMs > 0 && Number.isFinite(this.timeoutMs) && !this.signal.aborted) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.signal.abort();
      }, this.timeoutMs);
      this.timer.unref();
    }
  }

  /** undici options for the request: its header timer off, since ours is the one that runs. */
  get undiciTimeouts(): { headersTimeout: number } {
    return { headersTimeout: 0 };
  }

  /** `dispatcher` with this attempt's clock started when undici writes the request. */
  dispatcher(base: Dispatcher): Dispatcher {
    // A second call (another request of the same attempt) waits for its own write.
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.written = false;
    return { dispatch: (opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => base.dispatch(opts, new WrittenHandler(handler, () => this.requestWritten())) } as unknown as Dispatcher;
  }

  /** The request went out on a connection: the attempt clock starts now. */
  requestWritten(): void {
    if (this.written) return;
    this.written = true;
    this.startClock();
    this.onRequestWritten?.(performance.now() - this.createdAt);
  }

  /** Aborts the upstream call (e.g. the consumer of a stream went away). */
  abort(): void {
    this.signal.abort();
  }

  headersArrived(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.headersArrived();
    this.clientSignal.removeEventListener('abort', this.onClientAbort);
  }

  /** Maps anything thrown by undici during this attempt to our error types. */
  toError(err: unknown, phase: 'connect' | 'body'): Error {
    if (err instanceof GatewayError || err instanceof ClientAbortError) return err;
    if (this.clientSignal.aborted) return new ClientAbortError();
    if (this.timedOut) {
      return new UpstreamError(`upstream did not answer within the attempt timeout (${this.timeoutMs} ms)`, {
        status: 504,
        reason: 'timeout',
      });
    }
    const code = (err as { code?: unknown })?.code;
    if (code === 'UND_ERR_BODY_TIMEOUT') {
      return new UpstreamError(`upstream sent nothing for the attempt timeout (${this.timeoutMs} ms) in the middle of its answer`, {
        status: 504,
        reason: 'timeout',
      });
    }
    const detail = typeof code === 'string' ? ` (${code})` : '';
    const message =
      phase === 'connect'
        ? `the upstream connection failed before an answer${detail}`
        : `the upstream connection dropped before the answer was complete${detail}`;
    return new UpstreamError(message, { status: 502, reason: 'connection_error', cause: err });
  }
}

/**
 * undici's (legacy) dispatch handler, passed through, that tells when the request is written:
 * undici calls `onConnect` on the connection, just before writing the request.
 */
class WrittenHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly onWritten: () => void,
  ) {}

  onConnect(abort: (err?: Error) => void, context?: object): void {
    this.onWritten();
    (this.inner.onConnect as ((abort: (err?: Error) => void, context?: object) => void) | undefined)?.call(this.inner, abort, context);
  }
  onError(err: Error): void {
    this.inner.onError?.(err);
  }
  onUpgrade(statusCode: number, headers: Buffer[] | string[] | null, socket: unknown): void {
    this.inner.onUpgrade?.(statusCode, headers, socket as never);
  }
  onResponseStarted(): void {
    this.inner.onResponseStarted?.();
  }
  onHeaders(statusCode: number, headers: Buffer[], resume: () => void, statusText: string): boolean {
    return this.inner.onHeaders?.(statusCode, headers, resume, statusText) ?? true;
  }
  onData(chunk: Buffer): boolean {
    return this.inner.onData?.(chunk) ?? true;
  }
  onComplete(trailers: string[] | null): void {
    this.inner.onComplete?.(trailers);
  }
  onBodySent(chunkSize: number, totalBytesSent: number): void {
    this.inner.onBodySent?.(chunkSize, totalBytesSent);
  }
}
