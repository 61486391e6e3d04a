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

/** Where a response sits in the in-flight list (see `trackInflight`). */
const SLOT = Symbol('sidegate.inflightSlot');
type Tracked = ServerResponse & { [SLOT]?: number };

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
  // An array with swap-and-pop removal, each response holding its index: not a Set. Every
  // request adds and deletes, and a Set that churns is rebuilt every few dozen requests, its old
  // table linked to the new one (V8 keeps that link for live iterators). Once a collection has
  // moved one of those tables to the old generation, the dead table keeps the next one alive
  // through every young-generation collection, and it the one after, each with the answers it
  // held: every request's response was promoted, and the process stayed in that state, tracing
  // on or off (docs/performance.md, "Issue 25, ninth round").
  const inflight: Tracked[] = [];
  const remove = (res: Tracked) => {
    const at = res[SLOT];
    if (at === undefined) return;
    res[SLOT] = undefined;
    const last = inflight.pop()!;
    if (last !== res) {
      inflight[at] = last;
      last[SLOT] = at;
    }
  };
  let server: Server | undefined;
  let settled = false;
  let wake: (() => void) | undefined;

  const check = () => {
    if (!settled) return;
    if (inflight.length === 0) wake?.();
    // The connection of an answer that just ended is idle now: close it instead of waiting for
    // the client to send another request.
    setImmediate(() => server?.closeIdleConnections());
  };

  return {
    add(res: Tracked) {
      res[SLOT] = inflight.length;
      inflight.push(res);
      if (isDraining()) res.shouldKeepAlive = false;
      res.once('close', () => {
        remove(res);
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
        if (settled && inflight.length === 0) resolve();
      });
    },
    get size() {
      return inflight.length;
    },
  };
}
