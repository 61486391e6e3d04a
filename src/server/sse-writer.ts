/**
 * Writes OpenAI server-sent events: `data: <json>\n\n` per chunk, `data: [DONE]` after a clean end,
 * and on a failure after the stream started an error event and no `[DONE]` (DESIGN Decision 8),
 * which the `openai` SDK turns into a thrown error instead of a silently short answer.
 */
import type { ServerResponse } from 'node:http';
import { toErrorResponse } from '../errors.js';

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
    this.res.writeHead(status, { ...SSE_HEADERS, ...headers });
  }

  /** Writes one event; waits for the socket to drain when the client reads slower than upstream writes. */
  async send(data: unknown): Promise<void> {
    if (!this.open) return;
    if (!this.res.write(`data: ${JSON.stringify(data)}\n\n`)) await this.drained();
  }

  done(): void {
    if (this.open) this.res.end('data: [DONE]\n\n');
  }

  fail(err: unknown): void {
    if (!this.open) return;
    const { body } = toErrorResponse(err);
    const { message, type, code } = body.error;
    this.res.end(`data: ${JSON.stringify({ error: { message, type, code } })}\n\n`);
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
