/**
 * The Vertex AI `Provider` (issue 22): Gemini on `aiplatform.googleapis.com` with the pod's
 * Google identity. Composition, not a copy: chat and streaming are the Gemini provider's own
 * calls with Vertex's wire (`vertex-wire.ts`: address, credential header, media, labels);
 * embeddings (`:predict`) and the model list (`v1beta1` publisher models) are Vertex's own and
 * done here. The only file in `providers/vertex` that does I/O.
 *
 * Per attempt: the credential chain picks a source (`vertex-credential.ts`), the credential
 * registry turns it into a token (cached per credential, refreshed before expiry, one refresh at
 * a time), and the call goes to `{origin}/v1/projects/{p}/locations/{r}/publishers/google/models`.
 * A credential that cannot give a token is a 502 `vertex_auth_failed` naming its source, never a
 * hang; a 401 from Vertex drops the cached token so the next attempt refreshes it. Tokens travel
 * as the inner target's `apiKey`, so the shared error scrubber removes them from any message.
 */
import type { ClientSignal } from '../../client-signal.js';
import { InvalidRequestError, UpstreamError } from '../../errors.js';
import { AttemptControl } from '../attempt-control.js';
import { convertEmbedResponse } from '../gemini/convert-embed-response.js';
import { parseGeminiError } from '../gemini/errors.js';
import { createGeminiProvider, type GeminiProviderOptions } from '../gemini/gemini-provider.js';
import { createGoogleCredentials, GoogleCredentialError, isGoogleApiHost, type GoogleCredentials } from '../google-auth/google-credentials.js';
import { createUpstreamAgent, request as undiciRequest, type Dispatcher } from '../../http-client.js';
import type { EmbedCall, EmbedResult, Provider, ProviderCall, ProviderModel, Target } from '../provider.js';
import { getJsonPages, postJson, readErrorText, readJsonAnswer, answerLimitsFrom } from '../post-json.js';
import { scrubProviderErrors } from '../scrub-provider-errors.js';
import { describeCredentialSource, vertexCredentialSource, type VertexCredentialSource } from './vertex-credential.js';
import { convertVertexEmbedRequest, predictAnswerAsBatch } from './vertex-embeddings.js';
import { VERTEX_MODEL_LIST_PATH, vertexModelSegment, vertexModelsUrl } from './vertex-endpoint.js';
import { convertVertexModelList } from './vertex-model-list.js';
import { VERTEX_WIRE, vertexAuthHeaders } from './vertex-wire.js';

export interface VertexProviderOptions extends Omit<GeminiProviderOptions, 'wire' | 'files' | 'fetchMedia' | 'fileCacheSize'> {
  /** The credential registry; default one over Google's auth library. */
  credentials?: GoogleCredentials;
  /**
   * Hosts (`host` or `host:port`) a service-account key's `token_uri` may name besides
   * `*.googleapis.com` (the gateway passes `SIDEGATE_CUSTOM_HOSTS`).
   */
  tokenHosts?: readonly string[];
  /** Token refresh margin and fetch timeout of the default registry. */
  refreshMarginMs?: number;
  tokenFetchTimeoutMs?: number;
}

/** `gen_ai.provider.name` for `aiplatform.googleapis.com` (OTel GenAI semconv, vertex-ai.md §6). */
export const VERTEX_TELEMETRY_NAME = 'gcp.vertex_ai';

type UndiciResponse = Dispatcher.ResponseData;

interface Authorized {
  /** The target the Gemini wire calls: `baseUrl` is the model collection, `apiKey` the token or key. */
  inner: Target;
  source: VertexCredentialSource;
}

export function vertexAuthFailed(err: GoogleCredentialError): UpstreamError {
  return new UpstreamError(`could not authenticate to Vertex AI with ${describeCredentialSource(err.source)}: ${err.reason}`, {
    status: 502,
    reason: 'vertex_auth_failed',
    code: 'vertex_auth_failed',
  });
}

function tokenUriCheck(hosts: readonly string[]): (url: URL) => boolean {
  const allowed = new Set(hosts.map((h) => h.trim().toLowerCase().replace(/^\[|\]$/g, '')));
  return (url) => isGoogleApiHost(url) || allowed.has(url.hostname.toLowerCase().replace(/^\[|\]$/g, '')) || allowed.has(url.host.toLowerCase());
}

export function createVertexProvider(options: VertexProviderOptions = {}): Provider {
  const ownDispatcher = options.dispatcher === undefined;
  const dispatcher = options.dispatcher ?? createUpstreamAgent(options);
  const send = options.request ?? undiciRequest;
  const answerLimits = answerLimitsFrom(options);
  const credentials =
    options.credentials ??
    createGoogleCredentials({
      allowTokenUri: tokenUriCheck(options.tokenHosts ?? []),
      ...(options.refreshMarginMs !== undefined ? { refreshMarginMs: options.refreshMarginMs } : {}),
      ...(options.tokenFetchTimeoutMs !== undefined ? { fetchTimeoutMs: options.tokenFetchTimeoutMs } : {}),
    });
  const generate = createGeminiProvider(Object.assign({}, options, { dispatcher, wire: VERTEX_WIRE }));

  async function authorize(target: Target): Promise<Authorized> {
    const source = vertexCredentialSource(target);
    const region = target.vertex?.region ?? 'global';
    let resolved;
    try {
      resolved = await credentials.resolve(source, target.vertex?.projectId);
    } catch (err) {
      if (err instanceof GoogleCredentialError) throw vertexAuthFailed(err);
      throw err;
    }
    const express = source.kind === 'express-api-key';
    if (!express && resolved.projectId === undefined) {
      throw new InvalidRequestError('no Vertex AI project: send x-gateway-vertex-project-id or set vertex_project_id', {
        param: 'x-gateway-vertex-project-id',
        code: 'missing_vertex_project',
      });
    }
    const scope = express ? undefined : { projectId: encodeURIComponent(resolved.projectId!), region: encodeURIComponent(region) };
    const inner = Object.assign({}, target, { apiKey: resolved.secret, baseUrl: vertexModelsUrl(target.baseUrl, scope) });
    return { inner, source };
  }

  /** Runs one upstream call; a 401 from Vertex drops the token it refused. */
  async function withCredential<T>(target: Target, run: (auth: Authorized) => Promise<T>): Promise<T> {
    const auth = await authorize(target);
    try {
      return await run(auth);
    } catch (err) {
      if (err instanceof UpstreamError && err.status === 401) credentials.invalidate(auth.source, auth.inner.apiKey);
      throw err;
    }
  }

  const chat = (call: ProviderCall) => withCredential(call.target, (auth) => generate.chat(Object.assign({}, call, { target: auth.inner })));
  const chatStream = (call: ProviderCall) =>
    withCredential(call.target, (auth) => generate.chatStream(Object.assign({}, call, { target: auth.inner })));

  async function readErrorBody(res: UndiciResponse, apiKey: string, control: AttemptControl): Promise<UpstreamError> {
    const text = await readErrorText(res, control, answerLimits);
    const retryAfter = res.headers['retry-after'];
    return parseGeminiError(res.statusCode, text, typeof retryAfter === 'string' ? { retryAfterHeader: retryAfter, apiKey } : { apiKey });
  }


  /** `:predict`, one call per batch, one after another within the attempt. */
  async function embed(call: EmbedCall): Promise<EmbedResult> {
    const model = call.target.model ?? call.request.model;
    const segment = vertexModelSegment(model);
    const { batches, warnings } = convertVertexEmbedRequest(call.request, model);
    return withCredential(call.target, async ({ inner }) => {
      const url = `${inner.baseUrl}/${segment}:predict`;
      const headers = Object.assign({}, call.traceHeaders, { accept: 'application/json' }, vertexAuthHeaders(inner.apiKey));
      const answers: unknown[] = [];
      for (const [i, body] of batches.entries()) {
        const control = new AttemptControl(call.signal, inner.timeoutMs, i === 0 ? call.onRequestWritten : undefined);
        try {
          const res = await postJson(send, url, body, headers, control, dispatcher);
          if (res.statusCode >= 300) throw await readErrorBody(res, inner.apiKey, control);
          answers.push(predictAnswerAsBatch(await readJsonAnswer(res, control, answerLimits)));
        } finally {
          control.dispose();
        }
      }
      const { response, outcome } = convertEmbedResponse(answers, {
        model: call.request.model,
        targetModel: model,
        encodingFormat: call.request.encoding_format ?? 'float',
        batchSizes: batches.map((b) => b.instances.length),
        warnings,
      });
      return { status: 200, response, outcome };
    });
  }

  /** `GET /v1beta1/publishers/google/models`, following page tokens (at most 20 pages). */
  async function listModels(target: Target, signal: ClientSignal): Promise<ProviderModel[]> {
    return withCredential(target, async ({ inner }) => {
      const url = `${target.baseUrl.replace(/\/+$/, '')}${VERTEX_MODEL_LIST_PATH}`;
      const pages = await getJsonPages(url, Object.assign({ accept: 'application/json' }, vertexAuthHeaders(inner.apiKey)), {
        send,
        dispatcher,
        signal,
        timeoutMs: target.timeoutMs,
        limits: answerLimits,
        readError: (res, control) => readErrorBody(res, inner.apiKey, control),
      });
      return convertVertexModelList(pages);
    });
  }

  // Errors of embeddings and the model list pass the scrubber with the resolved token too.
  const scrubbed = scrubProviderErrors({
    name: 'vertex-ai',
    telemetryName: VERTEX_TELEMETRY_NAME,
    operationName: 'generate_content',
    chat,
    chatStream,
    embed,
    listModels,
  });
  return Object.assign(scrubbed, {
    async close() {
      await generate.close();
      if (ownDispatcher) await dispatcher.close();
    },
  });
}

