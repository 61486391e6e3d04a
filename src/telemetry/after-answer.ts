/**
 * Where the request and attempt spans do their ending work: after the answer is on the wire.
 *
 * Why: Node writes a response's bytes on the next tick after `res.end()` (the socket is corked
 * until then), and an attempt span ends before the answer is even written. Everything a span does
 * when it ends (attributes from the outcome, cost, status, the SDK's `end`, the batch processor's
 * `onEnd`, which serialises and sends a whole batch when it fills, and the metric records, each an
 * attribute hash) would otherwise sit between the answer and the client. The times are taken when
 * `end` is called and passed explicitly, so what Jaeger shows is the same.
 *
 * Work queued in one turn of the event loop runs, in order, in one `setImmediate` (after the
 * ticks that write the answers). `flush()` runs what is queued at once: `forceFlush` and
 * `shutdown` call it first, so no span is left behind. Work never throws out of here.
 */
export class AfterAnswer {
  #queue: Array<() => void> = [];
  #scheduled = false;

  run(work: () => void): void {
    this.#queue.push(work);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#drain);
    }
  }

  /** Runs every queued piece of work now, in the order queued. */
  flush(): void {
    while (this.#queue.length > 0) {
      const queue = this.#queue;
      this.#queue = [];
      for (const work of queue) {
        try {
          work();
        } catch {
          // telemetry never hurts the request
        }
      }
    }
  }

  readonly #drain = (): void => {
    this.#scheduled = false;
    this.flush();
  };
}
