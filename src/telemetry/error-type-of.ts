/** How an error shows on a span: `error.type` (semconv "Recording errors") and the status message. Pure. */
import { ClientAbortError, GatewayError, UpstreamError } from '../errors.js';
import { scrubSecrets } from '../scrub-secrets.js';

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

/**
 * Span status message: only our own error types' messages (upstream text in them already passed
 * the scrubber with the attempt's key; scrubbed again here for anything shaped like a key), else
 * the status. Exported spans leave the process: nothing key-like goes out in them.
 */
export function statusMessageOf(error: unknown, status: number | undefined): string | undefined {
  if (error instanceof GatewayError || error instanceof ClientAbortError) return scrubSecrets(error.message);
  return status === undefined ? undefined : `HTTP ${status}`;
}
