/**
 * `POST/GET /v1/cached_contents`, `GET/DELETE /v1/cached_contents/{id}` (issue 23 row 7): Gemini
 * context caches made from OpenAI-format messages and tools, a thin translation over
 * `cachedContents` (gemini-more-fields §8). Use the answer's `id` as `cached_content` in a chat
 * call. Caches are Gemini's: another provider is a 400 before anything is sent. The credential
 * comes from the same headers as chat (`x-gateway-provider`, a virtual key, `Authorization`).
 *
 * Answer: `{id: "cachedContents/…", object: "cached_content", model, display_name?, created_at,
 * expires_at, usage: {total_tokens}}` (times in Unix seconds); a list is `{object: "list", data,
 * next_page_token?}`; a delete `{id, object: "cached_content.deleted", deleted: true}`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { ChatCompletionRequestSchema } from '../openai/chat-request.js';
import { issueToError } from '../openai/parse-chat-request.js';
import { convertCacheRequest } from '../providers/gemini/convert-cache-request.js';
import { createGeminiCachesClient, type GeminiCachedContent, type GeminiCachesClient } from '../providers/gemini/gemini-caches-client.js';
import type { ProviderCredential } from '../providers/gemini/gemini-files-client.js';
import type { ProviderName } from '../providers/provider.js';
import type { Route } from '../server/app.js';
import { readJsonBody } from '../server/read-body.js';
import { sendJson } from '../server/respond.js';

export interface CachedContentsRouteDeps {
  resolveProviderKey: (headers: IncomingHttpHeaders) => (ProviderCredential & { provider: ProviderName }) | Promise<ProviderCredential & { provider: ProviderName }>;
  maxBodyBytes: number;
  timeoutMs: number;
  client?: GeminiCachesClient;
}

const shape = ChatCompletionRequestSchema.shape;
const CreateCacheSchema = z.strictObject({
  model: shape.model,
  messages: shape.messages,
  tools: shape.tools,
  tool_choice: shape.tool_choice,
  /** Seconds (a number) or a Duration string `"300s"`. */
  ttl: z
    .union([z.number().positive(), z.string().regex(/^\d+(\.\d{1,9})?s$/, 'a duration such as "300s"')])
    .transform((v) => (typeof v === 'number' ? v : Number(v.slice(0, -1))))
    .optional(),
  display_name: z.string().max(128).optional(),
});

const CACHE_ID = /^[A-Za-z0-9_-]{1,128}$/;

function seconds(time: string | null | undefined): number | null {
  const ms = time ? Date.parse(time) : NaN;
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
}

function toOpenAICache(cache: GeminiCachedContent): Record<string, unknown> {
  return {
    id: cache.name,
    object: 'cached_content',
    model: (cache.model ?? '').replace(/^models\//, ''),
    ...(cache.displayName ? { display_name: cache.displayName } : {}),
    created_at: seconds(cache.createTime),
    expires_at: seconds(cache.expireTime),
    usage: { total_tokens: cache.usageMetadata?.totalTokenCount ?? 0 },
  };
}

function cacheId(params: Record<string, string>): string {
  const id = (params.id ?? '').replace(/^cachedContents\//, '');
  if (!CACHE_ID.test(id)) throw new InvalidRequestError('not a cache id (cachedContents/<id> or <id>)', { param: 'id', code: 'invalid_cache_id' });
  return id;
}

export function createCachedContentsRoutes(deps: CachedContentsRouteDeps): Route[] {
  const client = deps.client ?? createGeminiCachesClient({ timeoutMs: deps.timeoutMs });
  async function credential(headers: IncomingHttpHeaders): Promise<ProviderCredential> {
    const { provider, apiKey, baseUrl } = await deps.resolveProviderKey(headers);
    if (provider !== 'google') {
      throw new InvalidRequestError(`context caches are Gemini's; x-gateway-provider resolves to ${provider}, use google (or a Google virtual key)`, {
        param: 'x-gateway-provider',
        code: 'unsupported_provider',
      });
    }
    return { apiKey, baseUrl };
  }
  return [
    {
      method: 'POST',
      path: '/v1/cached_contents',
      handler: async (req, res) => {
        const body = await readJsonBody(req, deps.maxBodyBytes);
        const parsed = CreateCacheSchema.safeParse(body);
        if (!parsed.success) throw issueToError(parsed.error.issues[0]!);
        const cred = await credential(req.headers);
        const cache = await client.create(cred, convertCacheRequest(parsed.data, cred.baseUrl));
        sendJson(res, 200, toOpenAICache(cache));
      },
    },
    {
      method: 'GET',
      path: '/v1/cached_contents',
      handler: async (req, res) => {
        const url = new URL(req.url ?? '/', 'http://x');
        const limit = url.searchParams.get('limit');
        const after = url.searchParams.get('after');
        const page = await client.list(await credential(req.headers), {
          ...(limit !== null && /^\d+$/.test(limit) ? { pageSize: Number(limit) } : {}),
          ...(after !== null ? { pageToken: after } : {}),
        });
        sendJson(res, 200, { object: 'list', data: page.caches.map(toOpenAICache), ...(page.nextPageToken ? { next_page_token: page.nextPageToken } : {}) });
      },
    },
    {
      method: 'GET',
      path: '/v1/cached_contents/:id',
      handler: async (req, res, params) => {
        const id = cacheId(params);
        sendJson(res, 200, toOpenAICache(await client.get(await credential(req.headers), id)));
      },
    },
    {
      method: 'DELETE',
      path: '/v1/cached_contents/:id',
      handler: async (req, res, params) => {
        const id = cacheId(params);
        await client.delete(await credential(req.headers), id);
        sendJson(res, 200, { id: `cachedContents/${id}`, object: 'cached_content.deleted', deleted: true });
      },
    },
  ];
}
