/**
 * Sends framework runs to `POST /v1/logs` in batches, off the hot path: `add` only queues; a
 * timer (unref'd, so it never keeps a process alive) or a full batch sends them. A failure to
 * send is reported once through `onError` (default: one `console.warn` line without the key)
 * and the batch is dropped: it never throws into the user's code. `flush()` sends what is queued
 * and resolves when it was sent or dropped (call it before a short-lived process exits).
 */
import type { SidegateLog } from './gateway-resources.js';

export interface LogBatcherOptions {
  /** Gateway key (`x-gateway-api-key`). */
  apiKey: string;
  /** Gateway base URL including `/v1`. */
  baseURL: string;
  /** Logs per request (the route takes up to 1,000; default 100). */
  batchSize?: number;
  /** Longest time a log waits before being sent (default 1,000 ms). */
  flushIntervalMs?: number;
  /** Most logs kept while the gateway is unreachable; older ones are dropped (default 10,000). */
  maxQueued?: number;
  /** Called when a batch could not be sent; never receives a key. */
  onError?: (error: Error) => void;
  fetch?: typeof fetch;
}

export class LogBatcher {
  private queue: SidegateLog[] = [];
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private warned = false;
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private readonly maxQueued: number;
  private readonly send: typeof fetch;

  constructor(private readonly options: LogBatcherOptions) {
    this.batchSize = Math.min(1000, Math.max(1, options.batchSize ?? 100));
    this.intervalMs = options.flushIntervalMs ?? 1000;
    this.maxQueued = options.maxQueued ?? 10_000;
    this.send = options.fetch ?? fetch;
  }

  add(log: SidegateLog): void {
    if (this.queue.length >= this.maxQueued) this.queue.shift();
    this.queue.push(log);
    if (this.queue.length >= this.batchSize) void this.flush();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.intervalMs);
      this.timer.unref?.();
    }
  }

  /** Sends everything queued; never rejects. */
  flush(): Promise<void> {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const batches: SidegateLog[][] = [];
    while (this.queue.length > 0) batches.push(this.queue.splice(0, this.batchSize));
    this.sending = this.sending.then(async () => {
      for (const batch of batches) await this.post(batch);
    });
    return this.sending;
  }

  private async post(batch: SidegateLog[]): Promise<void> {
    try {
      const res = await this.send(`${this.options.baseURL.replace(/\/+$/, '')}/logs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-api-key': this.options.apiKey },
        body: JSON.stringify(batch),
      });
      if (!res.ok) {
        const text = await res.text().catch(() => '');
        let message = text.slice(0, 300);
        try {
          message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
        } catch {
          // not JSON: keep the text
        }
        throw new Error(`sidegate: the gateway refused ${batch.length} log(s) with ${res.status}: ${message}`);
      }
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      const safe = new Error(error.message.split(this.options.apiKey).join('[key]'));
      if (this.options.onError) {
        try {
          this.options.onError(safe);
        } catch {
          // a user's error handler must not break the batcher either
        }
      } else if (!this.warned) {
        this.warned = true;
        console.warn(`${safe.message} (further failures are not reported)`);
      }
    }
  }
}
