/**
 * The HTTP server's own limits, applied the same way to the API port and the probe port
 * (issue 15 item 3): how long a client may take to send a request head and a body, how long an
 * idle keep-alive connection is kept, a new connection that never sends a byte, and a cap on
 * concurrent connections with a clear refusal instead of a silent drop.
 *
 * - `requestTimeout` is node's: it covers receiving the request (head and body) and stops once
 *   the request is complete, so a long streamed answer is never cut by it.
 * - `headersTimeout` is node's too, but node only starts it at the first byte; a new connection
 *   whose first request head is not complete after the same time (silent, or trickling) gets
 *   our own `408` and is closed (a keep-alive connection between requests is node's
 *   `keepAliveTimeout` instead).
 * - Beyond `maxConnections`, a connection is answered `503` with `Retry-After: 1` and the OpenAI
 *   envelope, then closed; node's own `server.maxConnections` would drop it without a word.
 */
import type { IncomingMessage, Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
}

/** Options for `createServer`, from the limits. */
export function serverOptions(limits: ServerLimits): ServerOptions {
  // node refuses a headersTimeout above requestTimeout (the request timeout already covers the head).
  const headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    headersTimeout,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // node checks the two timeouts on this interval (30 s by default, which let a trickling head
    // live 40 s past a 10 s limit); a quarter of the shorter one keeps the overshoot small.
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

const refused = new WeakSet<Socket>();
const REQUEST_TIMEOUT = 'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n';

/** True for a connection that got the over-capacity refusal; its requests must not be served. */
export function isRefusedConnection(req: IncomingMessage): boolean {
  return refused.has(req.socket);
}

const REFUSAL_BODY = (max: number) =>
  JSON.stringify({
    error: {
      message: `the gateway has ${max} open connections (SIDEGATE_MAX_CONNECTIONS); retry shortly`,
      type: 'api_error',
      param: null,
      code: 'too_many_connections',
    },
  });

/** Installs the first-byte timer, the connection cap and the malformed-request answers on `server`. */
export function guardConnections(server: Server, limits: ServerLimits): { open(): number } {
  let open = 0;
  const refusal = (() => {
    const body = REFUSAL_BODY(limits.maxConnections);
    return (
      'HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\nretry-after: 1\r\n' +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    );
  })();
  const firstRequestTimers = new WeakMap<Socket, NodeJS.Timeout>();

  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => {
      open--;
      const timer = firstRequestTimers.get(socket);
      if (timer) clearTimeout(timer);
    });
    if (open > limits.maxConnections) {
      refused.add(socket);
      socket.end(refusal);
      // Give the client time to read the answer before the socket goes (closing with unread
      // request bytes in the buffer would reset the connection and lose the 503).
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    const timer = setTimeout(() => {
      // Silent, or still sending its first head: the same answer node gives a head that is late.
      if (socket.writable) socket.end(REQUEST_TIMEOUT);
      setTimeout(() => socket.destroy(), 1000).unref();
    }, Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs));
    timer.unref();
    firstRequestTimers.set(socket, timer);
  });

  server.on('request', (req: IncomingMessage) => {
    const timer = firstRequestTimers.get(req.socket);
    if (timer) {
      clearTimeout(timer);
      firstRequestTimers.delete(req.socket);
    }
  });

  // Malformed HTTP must never take the process down; answer it like node would, with the reason.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || pending?.headersSent || refused.has(socket)) {
      socket.destroy();
      return;
    }
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      socket.end(REQUEST_TIMEOUT);
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  });

  return { open: () => open };
}
