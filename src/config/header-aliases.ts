/**
 * The explicit `x-portkey-*` → `x-gateway-*` alias table (DESIGN Decision 13), built once at
 * module load so a request only does lookups. `portkey-ai` SDK users can point at the sidecar
 * unchanged; when a request used the `x-portkey-` prefix, response headers are mirrored with it.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Each gateway header and the Portkey header that means the same (request and response). */
export const HEADER_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  'x-gateway-api-key': 'x-portkey-api-key',
  'x-gateway-provider': 'x-portkey-provider',
  'x-gateway-virtual-key': 'x-portkey-virtual-key',
  'x-gateway-config': 'x-portkey-config',
  // Portkey's name differs in more than the prefix.
  'x-gateway-strict-compliance': 'x-portkey-strict-open-ai-compliance',
  'x-gateway-trace-id': 'x-portkey-trace-id',
  'x-gateway-span-id': 'x-portkey-span-id',
  'x-gateway-parent-span-id': 'x-portkey-parent-span-id',
  'x-gateway-span-name': 'x-portkey-span-name',
  'x-gateway-metadata': 'x-portkey-metadata',
  'x-gateway-custom-host': 'x-portkey-custom-host',
  'x-gateway-request-timeout': 'x-portkey-request-timeout',
  'x-gateway-vertex-project-id': 'x-portkey-vertex-project-id',
  'x-gateway-vertex-region': 'x-portkey-vertex-region',
  'x-gateway-retry-attempt-count': 'x-portkey-retry-attempt-count',
  'x-gateway-last-used-option-index': 'x-portkey-last-used-option-index',
  'x-gateway-skipped-targets': 'x-portkey-skipped-targets',
});

/**
 * Value of a gateway header, falling back to its `x-portkey-` alias. The `x-gateway-` name wins
 * when both are present. Repeated headers (an array) yield their first value. Blank counts as absent.
 */
export function canonicalHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const own = firstValue(headers[name]);
  if (own !== undefined) return own;
  const alias = HEADER_ALIASES[name];
  return alias === undefined ? undefined : firstValue(headers[alias]);
}

/** True when the client spoke Portkey's dialect, so response headers should be mirrored with it. */
export function usesPortkeyPrefix(headers: IncomingHttpHeaders): boolean {
  for (const key of Object.keys(headers)) if (key.startsWith('x-portkey-')) return true;
  return false;
}

/** Adds the `x-portkey-` twin of every aliased response header (for clients that used that prefix). */
export function mirrorResponseHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = Object.assign({}, headers);
  for (const [name, value] of Object.entries(headers)) {
    const alias = HEADER_ALIASES[name];
    if (alias !== undefined) out[alias] = value;
  }
  return out;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v.trim() === '' ? undefined : v;
}
