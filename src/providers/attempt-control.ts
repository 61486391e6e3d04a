/**
 * Abort wiring of one upstream attempt, shared by every provider: the client's signal (the client
 * went away) plus the per-attempt timeout, which runs only until response headers arrive so a long
 * stream is never cut by it (DESIGN Decision 6). Maps what undici throws to our error types.
 * One instance per attempt; call `dispose()` when the attempt is over.
 */
import { ClientAbortError, GatewayError, UpstreamError } from '../errors.js';

export class AttemptControl {
  readonly controller = new AbortController();
  private timedOut = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly onClientAbort = (): void => this.controller.abort();

  constructor(
    private readonly clientSignal: AbortSignal,
    private readonly timeoutMs: number,
  ) {
    if (clientSignal.aborted) this.controller.abort();
    else clientSignal.addEventListener('abort', this.onClientAbort, { once: true });
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.controller.abort();
      }, timeoutMs);
      this.timer.unref();
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
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
