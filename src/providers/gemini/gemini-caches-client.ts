/**
 * Gemini's context-cache API (gemini-more-fields §8): `POST/GET /v1beta/cachedContents`,
 * `GET/DELETE /v1beta/cachedContents/{id}`. The one client of that resource; the cached-contents
 * front door calls it. The key travels only in `x-goog-api-key`, to the credential's base URL.
 * Cached contents are never readable back, only their metadata.
 */
import { z } from 'zod';
import { Agent, request as undiciRequest, type Dispatcher } from '../../http-client.js';
import { UpstreamError } from '../../errors.js';
import type { GeminiCachedContentBody } from './convert-cache-request.js';
import { connectionError, providerError, type ProviderCredential } from './gemini-files-client.js';

/** The fields of a `CachedContent` the gateway reads; lenient by design. */
export const GeminiCachedContent = z.looseObject({
  name: z.string(),
  model: z.string().nullish(),
  displayName: z.string().nullish(),
  createTime: z.string().nullish(),
  updateTime: z.string().nullish(),
  expireTime: z.string().nullish(),
  usageMetadata: z.looseObject({ totalTokenCount: z.number().nullish() }).nullish(),
});
export type GeminiCachedContent = z.infer<typeof GeminiCachedContent>;

const CacheList = z.looseObject({ cachedContents: z.array(GeminiCachedContent).nullish(), nextPageToken: z.string().nullish() });

export interface GeminiCachesClient {
  create(credential: ProviderCredential, body: GeminiCachedContentBody): Promise<GeminiCachedContent>;
  get(credential: ProviderCredential, id: string): Promise<GeminiCachedContent>;
  list(credential: ProviderCredential, page: { pageSize?: number; pageToken?: string }): Promise<{ caches: GeminiCachedContent[]; nextPageToken?: string }>;
  delete(credential: ProviderCredential, id: string): Promise<void>;
}

const API = "the provider's context-cache API";

export function createGeminiCachesClient(options: { request?: typeof undiciRequest; dispatcher?: Dispatcher; timeoutMs?: number } = {}): GeminiCachesClient {
  const request = options.request ?? undiciRequest;
  const dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 16 });
  const timeoutMs = options.timeoutMs ?? 600_000;

  async function call(credential: ProviderCredential, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
    let response: Dispatcher.ResponseData;
    try {
      response = await request(`${credential.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: { 'x-goog-api-key': credential.apiKey, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body === undefined ? null : JSON.stringify(body),
        dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      throw connectionError(err, API, 'the call was cancelled');
    }
    if (response.statusCode >= 400) throw await providerError(response, credential.apiKey, API);
    try {
      return await response.body.json();
    } catch {
      throw new UpstreamError(`${API} answered with a body that is not JSON`, { status: 502, reason: 'invalid_response' });
    }
  }

  function cacheOf(json: unknown): GeminiCachedContent {
    const parsed = GeminiCachedContent.safeParse(json);
    if (!parsed.success) throw new UpstreamError(`${API} answered without a CachedContent`, { status: 502, reason: 'invalid_response' });
    return parsed.data;
  }

  return {
    create: async (credential, body) => cacheOf(await call(credential, 'POST', '/v1beta/cachedContents', body)),
    get: async (credential, id) => cacheOf(await call(credential, 'GET', `/v1beta/cachedContents/${encodeURIComponent(id)}`)),
    async list(credential, page) {
      const query = new URLSearchParams();
      if (page.pageSize !== undefined) query.set('pageSize', String(page.pageSize));
      if (page.pageToken !== undefined) query.set('pageToken', page.pageToken);
      const parsed = CacheList.safeParse(await call(credential, 'GET', `/v1beta/cachedContents${query.size > 0 ? `?${query}` : ''}`));
      if (!parsed.success) throw new UpstreamError(`${API} answered without a list`, { status: 502, reason: 'invalid_response' });
      return { caches: parsed.data.cachedContents ?? [], ...(parsed.data.nextPageToken ? { nextPageToken: parsed.data.nextPageToken } : {}) };
    },
    async delete(credential, id) {
      await call(credential, 'DELETE', `/v1beta/cachedContents/${encodeURIComponent(id)}`);
    },
  };
}
