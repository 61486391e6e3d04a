/**
 * Vertex AI's side of the shared `generateContent` call (`GeminiWire`): the request and response
 * wire is the same as AI Studio's (gemini-wire.md), only the address, the credential header, media
 * and labels differ (vertex-ai.md §1, §2.1). Every `contents` entry already carries a role
 * (`user`/`model`), which Vertex requires and AI Studio only tolerates missing.
 *
 * The Vertex provider hands the Gemini provider a target whose `baseUrl` is already the model
 * collection (`…/projects/{p}/locations/{r}/publishers/google/models`, built once per attempt
 * after the credential named the project) and whose `apiKey` is the resolved token or key.
 */
import { accessTokenHeaders } from '../google-auth/access-token.js';
import { expressApiKeyHeaders } from '../google-auth/express-api-key.js';
import type { GeminiWire } from '../gemini/gemini-provider.js';
import { isGoogleApiKey } from './vertex-credential.js';
import { vertexModelSegment } from './vertex-endpoint.js';
import { finishVertexBody } from './vertex-labels.js';
import { resolveVertexMedia } from './vertex-media.js';

export function vertexAuthHeaders(secret: string): Record<string, string> {
  return isGoogleApiKey(secret) ? expressApiKeyHeaders(secret) : accessTokenHeaders(secret);
}

export const VERTEX_WIRE: GeminiWire = {
  modelsUrl: (target) => target.baseUrl,
  modelSegment: vertexModelSegment,
  authHeaders: (target) => vertexAuthHeaders(target.apiKey),
  resolveMedia: (request) => resolveVertexMedia(request),
  finishBody: finishVertexBody,
};
