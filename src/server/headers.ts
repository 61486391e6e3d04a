/**
 * Reading sidegate's request headers. Every `x-gateway-*` name also answers to its `x-portkey-*`
 * twin (DESIGN Decision 13) so `portkey-ai` SDK users can point at the sidecar unchanged.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** `x-portkey-*` names whose suffix differs from their `x-gateway-*` twin. */
const PORTKEY_SUFFIX: Readonly<Record<string, string>> = {
  'strict-compliance': 'strict-open-ai-compliance',
};

/** Value of `x-gateway-<suffix>` or its portkey alias; the first value when repeated. */
export function gatewayHeader(headers: IncomingHttpHeaders, suffix: string): string | undefined {
  const own = first(headers[`x-gateway-${suffix}`]);
  if (own !== undefined) return own;
  return first(headers[`x-portkey-${PORTKEY_SUFFIX[suffix] ?? suffix}`]);
}

/** True when the client used the `x-portkey-` prefix, so response headers are mirrored with it. */
export function usesPortkeyPrefix(headers: IncomingHttpHeaders): boolean {
  for (const name in headers) if (name.startsWith('x-portkey-')) return true;
  return false;
}

export function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
