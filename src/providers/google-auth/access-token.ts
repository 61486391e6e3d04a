/**
 * Credential source 1: an OAuth access token the caller already holds (`gcloud auth
 * print-access-token`, a token its own workload minted). Sent upstream as it is; the gateway
 * neither caches nor refreshes it.
 */
export function accessTokenHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
