/** Writing JSON answers and OpenAI error envelopes. */
import type { ServerResponse } from 'node:http';
import { toErrorResponse } from '../errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const payload = JSON.stringify(body);
  // One writeHead with every header: cheaper than a setHeader per header on the hot path.
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

/** Answers any thrown value with the OpenAI envelope; unknown errors become a generic 500. */
export function sendError(res: ServerResponse, err: unknown, headers?: Record<string, string>): number {
  const { status, body, retryAfterSeconds } = toErrorResponse(err);
  if (res.headersSent) {
    res.destroy();
    return status;
  }
  const extra: Record<string, string> = { ...headers };
  if (retryAfterSeconds !== undefined) extra['retry-after'] = String(Math.max(0, Math.ceil(retryAfterSeconds)));
  sendJson(res, status, body, extra);
  return status;
}
