// Vertex AI's paths, emulated from vertex-ai.md alone (shares no code with providers/): the
// generate calls of §1.1–1.2 on `/{v1|v1beta1}/projects/{p}/locations/{r}/publishers/google/models/{m}:{rpc}`
// with a bearer token this emulator issued (google-auth.ts), express mode on the project-less
// path with an API key (§1.5), embeddings through `:predict` (§1.4), and the v1beta1 publisher
// model list (§1.2). Project and region are checked; Vertex's own 400s of §2.1 (a content without
// a role, a Files API URI, bad labels) are answered as Vertex answers them. Generation itself is
// the emulator's shared model call, handed in by server.ts.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { embedText } from './embed.js';
import { googleError } from './errors.js';
import type { GoogleAuthEmulator } from './google-auth.js';
import { isEmbeddingModel } from './models.js';
import { writeJson } from './respond.js';
import type { RecordedRequest } from './script.js';

export interface VertexEmulatorOptions {
  /** Projects that exist (default: the metadata server's project). */
  projects?: string[];
  /** Regions served (default a few real ones plus `global`, `us`, `eu`). */
  regions?: string[];
}

/** The shared model call of server.ts: validation, scripted replies, default answers. */
export type ModelCall = (
  req: IncomingMessage,
  res: ServerResponse,
  rec: RecordedRequest,
  model: string,
  rpc: string,
  query: URLSearchParams | undefined,
  body: unknown,
) => Promise<void>;

const DEFAULT_REGIONS = ['global', 'us', 'eu', 'us-central1', 'us-east5', 'europe-west1', 'europe-west4', 'asia-northeast1'];
const PROJECT_PATH = /^\/(v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):([A-Za-z]+)$/;
const EXPRESS_PATH = /^\/(v1|v1beta1)\/publishers\/google\/models\/([^/:]+):([A-Za-z]+)$/;
const MODEL_LIST_PATH = '/v1beta1/publishers/google/models';
const GENERATE_RPCS = new Set(['generateContent', 'streamGenerateContent', 'countTokens']);
/** Embedding models Vertex serves besides the emulator's Gemini catalog. */
const VERTEX_EMBEDDING_MODELS = ['text-embedding-005', 'text-multilingual-embedding-002'];
const LABEL_KEY = /^[a-z][a-z0-9_-]{0,62}$/;
const LABEL_VALUE = /^[a-z0-9_-]{0,63}$/;

const UNAUTHENTICATED =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

export function createVertexRoutes(auth: GoogleAuthEmulator, catalogIds: readonly string[], modelCall: ModelCall, options: VertexEmulatorOptions = {}) {
  const projects = new Set(options.projects ?? [auth.projectId]);
  const regions = new Set(options.regions ?? DEFAULT_REGIONS);
  const models = [...catalogIds, ...VERTEX_EMBEDDING_MODELS];

  /** Null when the bearer token is a live one this emulator issued. */
  const bearerError = (req: IncomingMessage): ReturnType<typeof googleError> | null => {
    const header = req.headers.authorization;
    if (header === undefined && req.headers['x-goog-api-key'] !== undefined) {
      return googleError(401, 'API keys are not supported by this API. Expected OAuth2 access token or other authentication credentials that assert a principal. See https://cloud.google.com/docs/authentication', {
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'CREDENTIALS_MISSING', domain: 'googleapis.com' }],
      });
    }
    const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const state = token === undefined ? 'unknown' : auth.check(token);
    if (state === 'ok') return null;
    return googleError(401, UNAUTHENTICATED, {
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: state === 'expired' ? 'ACCESS_TOKEN_EXPIRED' : 'ACCESS_TOKEN_TYPE_UNSUPPORTED', domain: 'googleapis.com' }],
    });
  };

  return {
    matches(path: string): boolean {
      return path.startsWith('/v1/projects/') || path.startsWith('/v1beta1/projects/') || path.startsWith('/v1/publishers/') || path.startsWith('/v1beta1/publishers/');
    },

    async handle(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, path: string, query: URLSearchParams | undefined, body: unknown): Promise<void> {
      const method = req.method ?? 'GET';
      if (path === MODEL_LIST_PATH && method === 'GET') {
        const failure = bearerError(req);
        if (failure) return writeJson(res, 401, failure);
        const size = Math.min(1000, Number(query?.get('pageSize') ?? 100) || 100);
        const from = Number(query?.get('pageToken') ?? 0) || 0;
        const page = models.slice(from, from + size).map((id) => ({ name: `publishers/google/models/${id}`, versionId: '001', launchStage: 'GA' }));
        return writeJson(res, 200, Object.assign({ publisherModels: page }, from + size < models.length ? { nextPageToken: String(from + size) } : {}));
      }
      const scoped = PROJECT_PATH.exec(path);
      const express = scoped ? null : EXPRESS_PATH.exec(path);
      if ((!scoped && !express) || method !== 'POST') {
        return writeJson(res, 404, googleError(404, `The requested URL ${path} was not found on this server.`));
      }
      const model = decodeURIComponent(scoped ? scoped[4]! : express![2]!);
      const rpc = scoped ? scoped[5]! : express![3]!;
      rec.model = model;
      rec.rpc = rpc;
      if (scoped) {
        const failure = bearerError(req);
        if (failure) return writeJson(res, 401, failure);
        const [project, region] = [decodeURIComponent(scoped[2]!), decodeURIComponent(scoped[3]!)];
        if (!projects.has(project)) {
          return writeJson(
            res,
            403,
            googleError(403, `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${region}/publishers/google/models/${model}' (or it may not exist).`, {
              details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'IAM_PERMISSION_DENIED', domain: 'aiplatform.googleapis.com' }],
            }),
          );
        }
        if (!regions.has(region)) return writeJson(res, 400, googleError(400, `Unsupported region for Vertex AI, select from: ${[...regions].join(', ')}.`));
      } else {
        const key = req.headers['x-goog-api-key'];
        if (typeof key !== 'string' || key === '') return writeJson(res, 401, googleError(401, UNAUTHENTICATED));
        if (rpc === 'predict') return writeJson(res, 400, googleError(400, 'Express mode does not support this method.'));
      }
      if (rpc === 'predict') return predict(res, model, body);
      if (!GENERATE_RPCS.has(rpc)) return writeJson(res, 404, googleError(404, `Method ${rpc} not found.`));
      const problem = vertexOnlyProblem(body);
      if (problem !== undefined) return writeJson(res, 400, googleError(400, problem));
      // `labels` is Vertex's field; the shared validation knows the AI Studio request only.
      const { labels: _labels, ...rest } = body as Record<string, unknown>;
      return modelCall(req, res, rec, model, rpc, query, rest);
    },
  };
}

/** Vertex's own 400s on a generate body (vertex-ai.md §2.1); undefined when there is none. */
export function vertexOnlyProblem(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as { contents?: unknown; labels?: unknown };
  if (Array.isArray(b.contents)) {
    for (const c of b.contents as Array<{ role?: unknown; parts?: unknown }>) {
      if (c?.role !== 'user' && c?.role !== 'model') return 'Unable to submit request because Please use a valid role: user, model..';
      for (const p of Array.isArray(c.parts) ? (c.parts as Array<{ fileData?: { fileUri?: unknown } }>) : []) {
        const uri = p?.fileData?.fileUri;
        if (typeof uri === 'string' && /\/v1beta\/files\//.test(uri)) {
          return `Unable to submit request because the file URI ${uri} is not supported. Use a Cloud Storage URI (gs://) or an https URL.`;
        }
      }
    }
  }
  if (b.labels !== undefined) {
    if (typeof b.labels !== 'object' || b.labels === null || Array.isArray(b.labels)) return 'Invalid value at \'labels\': expected a map of strings.';
    for (const [k, v] of Object.entries(b.labels)) {
      if (!LABEL_KEY.test(k) || typeof v !== 'string' || !LABEL_VALUE.test(v)) return `Invalid label ${JSON.stringify(k)}: label keys and values must be lowercase letters, digits, _ or -.`;
    }
  }
  return undefined;
}

/** `:predict` for embedding models (§1.4): instances in, predictions with statistics out. */
function predict(res: ServerResponse, model: string, body: unknown): void {
  if (!isEmbeddingModel(model)) return writeJson(res, 400, googleError(400, `Model ${model} does not support predict.`));
  const b = body as { instances?: unknown; parameters?: { outputDimensionality?: unknown } } | null;
  const instances = Array.isArray(b?.instances) ? (b!.instances as Array<{ content?: unknown }>) : undefined;
  if (!instances || instances.length === 0 || instances.some((i) => typeof i?.content !== 'string')) {
    return writeJson(res, 400, googleError(400, 'Invalid JSON payload: instances must be a non-empty list of {"content": string}.'));
  }
  if (instances.length > 250) return writeJson(res, 400, googleError(400, 'Too many instances: at most 250 per request.'));
  if (model === 'gemini-embedding-001' && instances.length > 1) {
    return writeJson(res, 400, googleError(400, 'Unable to submit request because the model only supports 1 instance per request.'));
  }
  const dims = typeof b?.parameters?.outputDimensionality === 'number' ? b.parameters.outputDimensionality : model.startsWith('gemini-') ? 3072 : 768;
  let chars = 0;
  const predictions = instances.map((i) => {
    const text = i.content as string;
    chars += text.length;
    return { embeddings: { values: embedText(text, dims), statistics: { token_count: Math.ceil(text.length / 4), truncated: false } } };
  });
  writeJson(res, 200, { predictions, metadata: { billableCharacterCount: chars } });
}
