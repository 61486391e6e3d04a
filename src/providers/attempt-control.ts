/**
 * Abort wiring of one upstream attempt, shared by every provider: the client's signal (the client
 * went away) plus the per-attempt timeout, which runs only until response headers arrive so a long
 * stream is never cut by it (DESIGN Decision 6). Maps what undici throws to our error types.
 * One instance per attempt; call `dispose()` when the attempt is over.
 */
import { EventEmitter } from 'node:events';
import { ClientAbortError, GatewayError, UpstreamError } from '../errors.js';

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

  constructor(
    private readonly clientSignal: AbortSignal,
    private readonly timeoutMs: number,
  ) {
    if (clientSignal.aborted) this.signal.abort();
    else clientSignal.addEventListener('abort', this.onClientAbort, { once: true });
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.signal.abort();
      }, timeoutMs);
      this.timer.unref();
    }
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
    const detail = typeof code === 'string' ? ` (${code})` : '';
    const message =
      phase === 'connect'
        ? `the upstream connection failed before an answer${detail}`
        : `the upstream connection dropped before the answer was complete${detail}`;
    return new UpstreamError(message, { status: 502, reason: 'connection_error', cause: err });
  }
}
