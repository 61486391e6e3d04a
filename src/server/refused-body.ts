/**
 * The connection of a request answered 413 before its body was read to the end. Closing it at
 * once (what `Connection: close` makes node do as the answer finishes) lets the kernel reset the
 * connection under a client that is still sending: the client sees EPIPE or ECONNRESET instead of
 * the 413. Node's own `fetch` with a `FormData` body does, against a server that refuses the
 * declared length at once. So the answer keeps the connection: node reads and discards the rest of
 * the body, as it does for any request whose handler left its body unread, and the connection
 * serves the client's next request. A body that has not ended within `REFUSED_BODY_LINGER_MS`
 * (a client still sending a large upload, or one that stopped) has its connection cut then.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../errors.js';

/** How long a refused body may go on arriving before its connection is cut. */
export const REFUSED_BODY_LINGER_MS = 5_000;

/**
 * The connection of a request refused before its body was read to its end: a 413 lingers (above);
 * a 503 `overloaded` (over the in-flight budget) is shed with `Connection: close`; any other error
 * leaves it as it is.
 */
export function settleRefusedConnection(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (!(err instanceof GatewayError)) return;
  if (err.status === 413) lingerOverRefusedBody(req);
  else if (err.code === 'overloaded') res.setHeader('connection', 'close');
}

/** Cuts `req`'s connection if its refused body has not ended within the linger time; a no-op for a body read to its end. */
function lingerOverRefusedBody(req: IncomingMessage): void {
  if (req.complete) return;
  const socket = req.socket;
  const timer = setTimeout(() => socket.destroy(), REFUSED_BODY_LINGER_MS);
  timer.unref();
  const stop = () => clearTimeout(timer);
  req.once('end', stop);
  req.once('close', stop);
}
