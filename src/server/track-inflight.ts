/**
 * The answers in flight on one server, for the drain (issue 15 item 5). While draining, every
 * answer that has not started says `Connection: close` (node then closes its connection after
 * it), connections go as soon as they are idle, and `drained()` resolves once the last in-flight
 * answer has been written.
 *
 * Idle connections are closed after a short settle time rather than at the SIGTERM itself: a
 * keep-alive client that is between two requests at that instant would otherwise have its next
 * request cut in transit (closing an idle connection races with a request already on the wire).
 * Within the settle time every busy connection serves one more answer with `Connection: close`,
 * so the client itself stops reusing it; what is still idle after it is truly idle.
 */
import type { Server, ServerResponse } from 'node:http';

/** How long connections that are between requests get to send their next one, after SIGTERM. */
export const DRAIN_SETTLE_MS = 100;

export interface InflightTracker {
  /** Call for every request, before handling it. */
  add(res: ServerResponse): void;
  startDrain(server: Server): void;
  /** Resolves once no answer is in flight and the settle time has passed. */
  drained(): Promise<void>;
  readonly size: number;
}

export function trackInflight(isDraining: () => boolean): InflightTracker {
  const inflight = new Set<ServerResponse>();
  let server: Server | undefined;
  let settled = false;
  let wake: (() => void) | undefined;

  const check = () => {
    if (!settled) return;
    if (inflight.size === 0) wake?.();
    // The connection of an answer that just ended is idle now: close it instead of waiting for
    // the client to send another request.
    setImmediate(() => server?.closeIdleConnections());
  };

  return {
    add(res) {
      inflight.add(res);
      if (isDraining()) res.shouldKeepAlive = false;
      res.once('close', () => {
        inflight.delete(res);
        if (isDraining()) check();
      });
    },
    startDrain(s) {
      server = s;
      for (const res of inflight) if (!res.headersSent) res.shouldKeepAlive = false;
      setTimeout(() => {
        settled = true;
        check();
      }, DRAIN_SETTLE_MS).unref();
    },
    drained() {
      return new Promise<void>((resolve) => {
        wake = resolve;
        if (settled && inflight.size === 0) resolve();
      });
    },
    get size() {
      return inflight.size;
    },
  };
}
