/** Writing JSON answers and OpenAI error envelopes. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientAbortError, GatewayError, toErrorResponse } from '../errors.js';
import { scrubSecrets } from '../scrub-secrets.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const payload = JSON.stringify(body);
  // One writeHead with every header: cheaper than a setHeader per header on the hot path.
  // Object.assign, not `{ ...headers, … }`: see test/integration/hot-path-spreads.test.ts.
  const own = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) };
  res.writeHead(status, headers === undefined ? own : Object.assign({}, headers, own));
  res.end(payload);
}

/** Answers any thrown value with the OpenAI envelope; unknown errors become a generic 500. */
export function sendError(res: ServerResponse, err: unknown, headers?: Record<string, string>): number {
  const { status, body, retryAfterSeconds } = toErrorResponse(err);
  if (res.headersSent) {
    res.destroy();
    return status;
  }
  const extra: Record<string, string> = Object.assign({}, headers);
  if (retryAfterSeconds !== undefined) extra['retry-after'] = String(Math.max(0, Math.ceil(retryAfterSeconds)));
  sendJson(res, status, body, extra);
  return status;
}

/**
 * Logs the cause of an error that becomes a generic 500 (anything but our own error types and a
 * client abort), so no 500 is ever answered without a line saying why. Type, message and the
 * first stack frames only, scrubbed; never request data.
 */
export function logUnexpected(log: (line: string) => void, req: IncomingMessage, err: unknown): void {
  if (err instanceof GatewayError || err instanceof ClientAbortError) return;
  log(`sidegate: unexpected error on ${req.method} ${req.url?.split('?')[0]?.slice(0, 200)}: ${describeError(err)}`);
}

export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const frames = (err.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at ')).slice(0, 3);
  return scrubSecrets([`${err.name}: ${err.message}`, ...frames.map((f) => f.trim())].join(' | '));
}
