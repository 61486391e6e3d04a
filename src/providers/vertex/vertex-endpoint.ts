/**
 * Where a Vertex AI call goes (vertex-ai.md §1). Pure; built per attempt from the target.
 *
 * - Host: `{region}-aiplatform.googleapis.com`; `global` → `aiplatform.googleapis.com`; the
 *   multi-regions `us` / `eu` → `aiplatform.{us|eu}.rep.googleapis.com` (the host choice of
 *   `@google/genai`, `_api_client.ts`; Portkey and LiteLLM map `global` the same way).
 *   `SIDEGATE_VERTEX_BASE_URL` (or a custom host) replaces the origin for every region.
 * - Version `v1`, as Portkey, LiteLLM and Envoy use for Gemini (the SDK's default is `v1beta1`;
 *   the generate request's fields are the same in both, vertex-ai.md §1.3). The model list
 *   exists on `v1beta1` only.
 * - Express mode (an API key, no project): `/v1/publishers/google/models/{model}:{method}` on
 *   the global host (vertex-ai.md §1.5).
 */
import { InvalidRequestError } from '../../errors.js';

export const VERTEX_API_VERSION = 'v1';
/** `ListPublisherModels` is v1beta1-only and has no project or location (vertex-ai.md §1.2). */
export const VERTEX_MODEL_LIST_PATH = '/v1beta1/publishers/google/models';

/** A location name as Google spells them (`us-central1`, `europe-west4`, `global`, `us`). */
const REGION = /^[a-z][a-z0-9-]{0,62}$/;
/** Project IDs: lowercase letters, digits, hyphens (plus the legacy `domain.com:` prefix). */
const PROJECT_ID = /^[a-z][a-z0-9.:-]{2,98}[a-z0-9]$/;

export function isVertexRegion(value: string): boolean {
  return REGION.test(value);
}

export function isVertexProjectId(value: string): boolean {
  return PROJECT_ID.test(value);
}

/** Google's origin for a location. */
export function vertexOrigin(region: string): string {
  if (region === 'global') return 'https://aiplatform.googleapis.com';
  if (region === 'us' || region === 'eu') return `https://aiplatform.${region}.rep.googleapis.com`;
  return `https://${region}-aiplatform.googleapis.com`;
}

/** The origin an express-mode key calls (express mode has no regional hosts). */
export const VERTEX_EXPRESS_ORIGIN = 'https://aiplatform.googleapis.com';

/**
 * The collection a model id is appended to: `{origin}/v1/projects/{p}/locations/{r}/publishers/google/models`,
 * or without project and location for express mode (`projectId` undefined).
 */
export function vertexModelsUrl(origin: string, scope: { projectId: string; region: string } | undefined): string {
  const base = origin.replace(/\/+$/, '');
  if (scope === undefined) return `${base}/${VERTEX_API_VERSION}/publishers/google/models`;
  return `${base}/${VERTEX_API_VERSION}/projects/${scope.projectId}/locations/${scope.region}/publishers/google/models`;
}

/**
 * The model's path segment. `gemini-2.5-flash`, `models/gemini-2.5-flash` and
 * `publishers/google/models/gemini-2.5-flash` name the same model; ids with a path, a query or
 * `..` are refused, as `@google/genai`'s `tModel` refuses them.
 */
export function vertexModelSegment(model: string): string {
  let bare = model;
  for (const prefix of ['publishers/google/models/', 'models/']) {
    if (bare.startsWith(prefix)) bare = bare.slice(prefix.length);
  }
  if (bare === '' || /[/?&#\\:]|\.\./.test(bare)) {
    throw new InvalidRequestError(`model: ${JSON.stringify(model.slice(0, 100))} is not a valid Vertex AI model id`, { param: 'model' });
  }
  return encodeURIComponent(bare);
}
