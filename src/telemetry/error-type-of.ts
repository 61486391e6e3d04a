/** How an error shows on a span: `error.type` (semconv "Recording errors") and the status message. Pure. */
import { ClientAbortError, GatewayError, UpstreamError } from '../errors.js';

/** Low-cardinality `error.type`: never a message, never user data. */
export function errorTypeOf(error: unknown, status: number | undefined): string | undefined {
  if (error instanceof ClientAbortError) return 'cancelled';
  if (error instanceof UpstreamError) return error.reason;
  if (error instanceof GatewayError) return error.code ?? error.type;
  if (error !== undefined && error !== null) {
    const name = (error as { name?: unknown }).name;
    return typeof name === 'string' && name !== 'Error' && /^[A-Za-z_]\w{0,63}$/.test(name) ? name : '_OTHER';
  }
  if (status !== undefined && status >= 400) return String(status);
  return undefined;
}

/** Span status message: only our own error messages (which never hold keys), else the status. */
export function statusMessageOf(error: unknown, status: number | undefined): string | undefined {
  if (error instanceof GatewayError || error instanceof ClientAbortError) return error.message;
  return status === undefined ? undefined : `HTTP ${status}`;
}
