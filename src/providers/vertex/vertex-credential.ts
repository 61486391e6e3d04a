/**
 * Which Google credential a Vertex AI target uses, in the order (issue 22 item 2). Pure.
 *
 * 1. `apiKey` holding an OAuth access token (what `gcloud auth print-access-token` prints):
 *    sent upstream as `Authorization: Bearer` as it is. Portkey uses a target's `api_key` the
 *    same way (vertex-ai.md §5).
 * 2. `apiKey` holding a Google API key (`AIza…`, the only form Google issues): express mode,
 *    sent as `x-goog-api-key` (the header `@google/genai` sends, vertex-ai.md §1.5).
 * 3. `vertex.serviceAccountJson`: a service-account key, exchanged for tokens.
 * 4. Nothing: the pod's Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, else
 *    the metadata server of GKE Workload Identity / GCE).
 */
import type { GoogleCredentialSource } from '../google-auth/google-credentials.js';
import type { Target } from '../provider.js';

export type VertexCredentialSource = GoogleCredentialSource;

/** Google API keys: `AIza` and 35 more characters of the URL-safe alphabet. */
const GOOGLE_API_KEY = /^AIza[0-9A-Za-z_-]{35}$/;

export function isGoogleApiKey(value: string): boolean {
  return GOOGLE_API_KEY.test(value);
}

export function vertexCredentialSource(target: Pick<Target, 'apiKey' | 'vertex'>): VertexCredentialSource {
  const key = target.apiKey;
  if (key !== '') return isGoogleApiKey(key) ? { kind: 'express-api-key', apiKey: key } : { kind: 'access-token', token: key };
  const json = target.vertex?.serviceAccountJson;
  if (json !== undefined && json !== '') return { kind: 'service-account', json };
  return { kind: 'application-default' };
}

/** How an answer or a log names a credential source (never its value). */
export function describeCredentialSource(kind: VertexCredentialSource['kind']): string {
  switch (kind) {
    case 'access-token':
      return 'the access token given with the request';
    case 'express-api-key':
      return 'the Vertex AI express-mode API key';
    case 'service-account':
      return 'the service-account key';
    case 'application-default':
      return 'application default credentials (GOOGLE_APPLICATION_CREDENTIALS or the metadata server)';
    default: {
      const never: never = kind;
      return String(never);
    }
  }
}
