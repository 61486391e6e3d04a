/**
 * The overload guard (issue 15 item 7), in the way Envoy's overload manager bounds memory: a
 * budget of bytes held by in-flight requests and answers. A new request whose declared body does
 * not fit is refused with 503 and `Retry-After` before a byte of it is read; a chunked body
 * counts as it arrives and is refused as soon as it no longer fits. Upstream answers are counted
 * too (they make new requests wait) but are only ever refused by their own cap
 * (`SIDEGATE_MAX_UPSTREAM_ANSWER_BYTES`), never by the budget: work already admitted finishes.
 *
 * Bytes are weighted by what holding them costs in this process (measured, issue 15 item 7): a
 * request body is held once by reference and once more as the upstream body being written
 * (93 MB body → +149 MB RSS), so 2×; a non-streamed answer is held as bytes, as text, as parsed
 * JSON, as our completion and as the serialised answer (50 MB → +300 MB RSS), so 6×.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OverloadError, PayloadTooLargeError } from '../errors.js';

export const REQUEST_WEIGHT = 2;
export const ANSWER_WEIGHT = 6;
/** Reservations up to this size are always admitted (a small request costs nothing worth refusing). */
export const SMALL_RESERVATION = 1024 * 1024;
/** Kept out of the budget for the process itself: idle RSS (~80 MB) plus heap headroom. */
export const RESERVED_FOR_PROCESS = 128 * 1024 * 1024;
/** Budget when the container has no memory limit. */
export const DEFAULT_BUDGET_WITHOUT_LIMIT = 1024 * 1024 * 1024;
const MIN_BUDGET = 32 * 1024 * 1024;

/** `SIDEGATE_MAX_INFLIGHT_BYTES` when set, else derived from the container's memory limit. */
export function defaultInflightBudget(memoryLimit: number | undefined): number {
  if (memoryLimit === undefined) return DEFAULT_BUDGET_WITHOUT_LIMIT;
  return Math.max(MIN_BUDGET, memoryLimit - RESERVED_FOR_PROCESS);
}

export class InflightBudget {
  #held = 0;

  constructor(readonly limit: number) {}

  get held(): number {
    return this.#held;
  }

  /**
   * Reserves `bytes` for a request that already holds `alreadyHeld`, or throws the refusal (503;
   * 413 if it could never fit). A request that stays small is always admitted.
   */
  admit(bytes: number, what: string, alreadyHeld = 0): void {
    const total = alreadyHeld + bytes;
    if (total > SMALL_RESERVATION && this.#held + bytes > this.limit) throw this.refusal(total, what);
    this.#held += bytes;
  }

  /** Counts bytes already being held (answers): never refused. */
  hold(bytes: number): void {
    this.#held += bytes;
  }

  release(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }

  private refusal(bytes: number, what: string): Error {
    if (bytes > this.limit) {
      return new PayloadTooLargeError(
        `${what} needs ${bytes} bytes of the in-flight budget, more than all of it (${this.limit}, SIDEGATE_MAX_INFLIGHT_BYTES)`,
        { code: 'request_too_large' },
      );
    }
    return new OverloadError(
      `the gateway is holding ${this.#held} of its ${this.limit} in-flight bytes (SIDEGATE_MAX_INFLIGHT_BYTES); retry shortly`,
    );
  }
}

/** A request's share of the budget: grows as a chunked body arrives, released once when the answer is done. */
export class BudgetTicket {
  #bytes = 0;
  #released = false;

  constructor(private readonly budget: InflightBudget) {}

  admit(bytes: number, what: string): void {
    this.budget.admit(bytes, what, this.#bytes);
    this.#bytes += bytes;
  }

  hold(bytes: number): void {
    this.budget.hold(bytes);
    this.#bytes += bytes;
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.budget.release(this.#bytes);
  }
}

/**
 * The tickets of chunked bodies still arriving, which `admitBodyChunk` grows piece by piece. Only
 * those: a body with `content-length` is admitted whole up front, and every entry of a WeakMap is
 * an ephemeron the garbage collector visits on each scavenge the request lives through.
 */
const chunkedBodyTickets = new WeakMap<IncomingMessage, BudgetTicket>();

/**
 * Opens the request's ticket (released when the answer is done) and admits its declared body.
 * Throws the refusal; the body is then never read.
 */
export function admitRequest(req: IncomingMessage, res: ServerResponse, budget: InflightBudget): void {
  const ticket = new BudgetTicket(budget);
  res.once('close', () => ticket.release());
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > 0) ticket.admit(declared * REQUEST_WEIGHT, 'the request body');
  else if (req.headers['transfer-encoding'] !== undefined) chunkedBodyTickets.set(req, ticket);
}

/**
 * For a body without `content-length` (chunked): admits each piece as it arrives. Throws the
 * refusal when the body no longer fits. No-op for requests admitted up front or not tracked.
 */
export function admitBodyChunk(req: IncomingMessage, bytes: number): void {
  chunkedBodyTickets.get(req)?.admit(bytes * REQUEST_WEIGHT, 'the request body');
}
