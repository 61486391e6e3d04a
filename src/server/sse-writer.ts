/**
 * Writes server-sent events: `event: <name>` (when named) and `data: <json>` per event, with
 * backpressure. What the events are is the front door's (its response adapter): chat completions
 * write `data: [DONE]` after a clean end, and on a failure after the stream started an error
 * event and no `[DONE]` (DESIGN Decision 8), which the `openai` SDK turns into a thrown error.
 */
import type { ServerResponse } from 'node:http';

/** One server-sent event. A string `data` is written as it is (e.g. `[DONE]`); anything else as JSON. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // No `connection` header: node writes keep-alive itself, and `close` while draining (an explicit
  // value here would override the drain's).
  'x-accel-buffering': 'no',
};

export class SseWriter {
  private closed = false;
  private drainWaiter: (() => void) | undefined;

  constructor(private readonly res: ServerResponse) {
    res.once('close', () => {
      this.closed = true;
      this.drainWaiter?.();
    });
  }

  /** False once the client has gone away; stop producing then. */
  get open(): boolean {
    return !this.closed && !this.res.destroyed;
  }

  start(status: number, headers: Record<string, string>): void {
    this.res.writeHead(status, Object.assign({}, SSE_HEADERS, headers));
  }

  /**
   * Writes events. Returns a promise to wait on only when the socket must drain first (the client
   * reads slower than upstream writes); otherwise nothing, so a chunk costs no promise turn.
   */
  send(events: readonly SseEvent[]): Promise<void> | undefined {
    if (!this.open || events.length === 0) return undefined;
    return this.res.write(formatEvents(events)) ? undefined : this.drained();
  }

  /** Writes the last events and ends the response. */
  end(events: readonly SseEvent[]): void {
    if (this.open) this.res.end(formatEvents(events));
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        this.res.off('drain', finish);
        this.drainWaiter = undefined;
        resolve();
      };
      this.drainWaiter = finish;
      this.res.on('drain', finish);
    });
  }
}

function formatEvents(events: readonly SseEvent[]): string {
  let out = '';
  for (const e of events) {
    if (e.event !== undefined) out += `event: ${e.event}\n`;
    out += `data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`;
  }
  return out;
}
