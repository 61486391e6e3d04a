/**
 * Where the request and attempt spans hand their work to the SDK: off the request path, once an
 * answer is on the wire.
 *
 * Why: a span's work is mostly the SDK's (each `setAttribute` sanitises its value, each metric
 * record hashes its attribute set, `end` runs the batch processor's `onEnd`, which serialises a
 * batch when it fills), and none of it changes what the client or the upstream receives. Done in
 * place it would sit between the request and its upstream call (start attributes), between a
 * stream's first chunk and the client (time to first chunk) and between the answer and the client
 * (ending work: Node writes a response's bytes on the next tick after `res.end()`, and an attempt
 * span ends before the answer is even written). So the request path builds the attribute objects
 * and takes the times, and queues the rest here; the times are passed explicitly, so what Jaeger
 * shows is the same.
 *
 * Work runs in order, in one `setImmediate` per turn of the event loop in which a span ended (after
 * the ticks that write the answers); work that needs no turn of its own waits for one (`defer`),
 * so a span's start attributes are always set before its ending work. `flush()` runs what is
 * queued at once: `forceFlush` and `shutdown` call it first, so no span is left behind. Work never
 * throws out of here.
 */
export class OffPath {
  #queue: Array<() => void> = [];
  #scheduled = false;

  /** Queues `work` and asks for a turn to run it in: a span's ending work. */
  run(work: () => void): void {
    this.#queue.push(work);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#drain);
    }
  }

  /**
   * Queues `work` without asking for a turn of its own: it runs with the next `run`'s, this span's
   * ending work or any other's, whichever comes first. A span's start attributes and mid-call
   * records so add no turn of the event loop to a call (the first version gave them one; the
   * CPU per request differed by less than the bench can tell, journal of issue 25's sixth round).
   */
  defer(work: () => void): void {
    this.#queue.push(work);
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
