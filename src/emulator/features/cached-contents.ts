// Context caches (gemini-more-fields §8): `POST/GET /v1beta/cachedContents`,
// `GET/PATCH/DELETE /v1beta/cachedContents/{id}`, and the lookup generateContent makes for
// `cachedContent`. In memory, per emulator. Contents are never readable back (only metadata), the
// TTL defaults to one hour, and a cache below the model's minimum token count is refused.

import { badRequestError, googleError, type FieldViolation, type GoogleErrorBody } from '../errors.js';
import { isGemini3 } from '../models.js';
import { parseMessage } from '../proto-schema.js';

export const CACHES_PATH = '/v1beta/cachedContents';
const DEFAULT_TTL_S = 3600;
const DURATION = /^(\d+(?:\.\d{1,9})?)s$/;

interface StoredCache {
  name: string;
  model: string;
  displayName?: string;
  createTime: string;
  updateTime: string;
  expireMs: number;
  tokens: number;
}

export interface CacheLookup {
  tokens: number;
}

type Answer = { status: number; body: unknown };

/** Minimum cacheable tokens (DOC caching, 2026-07-30): Gemini 3 4096, 2.5 2048. */
function minimumTokens(model: string): number {
  return isGemini3(model) ? 4096 : 2048;
}

function notFound(id: string): GoogleErrorBody {
  return googleError(403, `CachedContent not found (or permission denied): cachedContents/${id}`); // emulator wording
}

export class CacheStore {
  private readonly caches = new Map<string, StoredCache>();
  private counter = 0;

  constructor(
    private readonly knowsModel: (id: string) => boolean,
    /** Prompt tokens of a parsed `{contents, systemInstruction, tools}` (the emulator's counting rule). */
    private readonly countTokens: (parsed: Record<string, unknown>) => number,
    private readonly now: () => number = Date.now,
  ) {}

  clear(): void {
    this.caches.clear();
    this.counter = 0;
  }

  private live(id: string): StoredCache | undefined {
    const c = this.caches.get(id);
    if (c && c.expireMs <= this.now()) {
      this.caches.delete(id);
      return undefined;
    }
    return c;
  }

  private view(c: StoredCache): Record<string, unknown> {
    return {
      name: c.name,
      model: `models/${c.model}`,
      ...(c.displayName !== undefined ? { displayName: c.displayName } : {}),
      createTime: c.createTime,
      updateTime: c.updateTime,
      expireTime: new Date(c.expireMs).toISOString(),
      usageMetadata: { totalTokenCount: c.tokens },
    };
  }

  /** What generateContent needs to know about `cachedContents/<id>` for `model`, or the 4xx. */
  lookup(name: string, model: string): { ok: true; value: CacheLookup } | { ok: false; error: GoogleErrorBody } {
    const id = name.replace(/^cachedContents\//, '');
    const c = this.live(id);
    if (!c) return { ok: false, error: notFound(id) };
    if (c.model !== model) {
      return { ok: false, error: googleError(400, `Model ${model} does not match the model of cachedContents/${id} (${c.model}).`) }; // emulator wording
    }
    return { ok: true, value: { tokens: c.tokens } };
  }

  /** Routes a request under CACHES_PATH. */
  handle(method: string, path: string, query: URLSearchParams | undefined, body: unknown): Answer {
    const rest = path.slice(CACHES_PATH.length);
    if (rest === '' && method === 'POST') return this.create(body);
    if (rest === '' && method === 'GET') {
      const size = Math.min(1000, Number(query?.get('pageSize') ?? 100) || 100);
      const from = Number(query?.get('pageToken') ?? 0) || 0;
      const all = [...this.caches.keys()].filter((id) => this.live(id)).map((id) => this.view(this.caches.get(id)!));
      const page = all.slice(from, from + size);
      return { status: 200, body: { cachedContents: page, ...(from + size < all.length ? { nextPageToken: String(from + size) } : {}) } };
    }
    const id = rest.startsWith('/') ? rest.slice(1) : '';
    if (id === '' || id.includes('/')) return { status: 404, body: googleError(404, `The requested URL ${path} was not found on this server.`) };
    const c = this.live(id);
    if (!c) return { status: 403, body: notFound(id) };
    if (method === 'GET') return { status: 200, body: this.view(c) };
    if (method === 'DELETE') {
      this.caches.delete(id);
      return { status: 200, body: {} };
    }
    if (method === 'PATCH') {
      const expire = this.expiry(body, ['ttl', 'expireTime', 'expire_time', 'name', 'updateMask', 'update_mask']);
      if (!expire.ok) return { status: 400, body: expire.error };
      if (expire.value !== undefined) c.expireMs = expire.value;
      c.updateTime = new Date(this.now()).toISOString();
      return { status: 200, body: this.view(c) };
    }
    return { status: 404, body: googleError(404, `The requested URL ${path} was not found on this server.`) };
  }

  private expiry(body: unknown, allowed: string[]): { ok: true; value: number | undefined } | { ok: false; error: GoogleErrorBody } {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    for (const key of Object.keys(b)) {
      if (!allowed.includes(key)) {
        return { ok: false, error: badRequestError([{ description: `Invalid JSON payload received. Unknown name ${JSON.stringify(key)}: Cannot find field.` }]) };
      }
    }
    const ttl = b.ttl;
    const expireTime = b.expireTime ?? b.expire_time;
    if (ttl !== undefined && expireTime !== undefined) return { ok: false, error: googleError(400, 'ttl and expire_time cannot both be set.') };
    if (ttl !== undefined) {
      const m = typeof ttl === 'string' ? DURATION.exec(ttl) : null;
      if (!m) return { ok: false, error: googleError(400, `Invalid value at 'cached_content.ttl' (type.googleapis.com/google.protobuf.Duration), ${JSON.stringify(ttl)}`) };
      return { ok: true, value: this.now() + Number(m[1]) * 1000 };
    }
    if (expireTime !== undefined) {
      const ms = typeof expireTime === 'string' ? Date.parse(expireTime) : NaN;
      if (Number.isNaN(ms)) return { ok: false, error: googleError(400, `Invalid value at 'cached_content.expire_time' (type.googleapis.com/google.protobuf.Timestamp), ${JSON.stringify(expireTime)}`) };
      return { ok: true, value: ms };
    }
    return { ok: true, value: undefined };
  }

  private create(body: unknown): Answer {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return { status: 400, body: googleError(400, 'Invalid JSON payload received.') };
    const { ttl, expireTime, expire_time, ...rest } = body as Record<string, unknown>;
    const expire = this.expiry({ ttl, expireTime: expireTime ?? expire_time }, ['ttl', 'expireTime']);
    if (!expire.ok) return { status: 400, body: expire.error };
    const violations: FieldViolation[] = [];
    const parsed = parseMessage('CachedContent', rest, '', violations);
    if (violations.length > 0) return { status: 400, body: badRequestError(violations) };
    const model = typeof parsed.model === 'string' ? parsed.model.replace(/^models\//, '') : '';
    if (model === '') return { status: 400, body: googleError(400, '* CachedContent.model: model is required\n') }; // emulator wording
    if (!this.knowsModel(model)) return { status: 404, body: googleError(404, `models/${model} is not found for API version v1beta, or is not supported for createCachedContent. Call ListModels to see the list of available models and their supported methods.`) };
    const tokens = this.countTokens(parsed);
    const min = minimumTokens(model);
    if (tokens < min) {
      return { status: 400, body: googleError(400, `Cached content is too small. total_token_count=${tokens}, min_total_token_count=${min}`) };
    }
    this.counter++;
    const id = `emucache${this.counter.toString(36).padStart(8, '0')}`;
    const now = new Date(this.now()).toISOString();
    const cache: StoredCache = {
      name: `cachedContents/${id}`,
      model,
      createTime: now,
      updateTime: now,
      expireMs: expire.value ?? this.now() + DEFAULT_TTL_S * 1000,
      tokens,
      ...(typeof parsed.displayName === 'string' ? { displayName: parsed.displayName } : {}),
    };
    this.caches.set(id, cache);
    return { status: 200, body: this.view(cache) };
  }
}

/** The 400 Google answers when a request sets what the cache owns (gemini-more-fields §8, newer text). */
export function cacheConflict(req: { systemInstruction?: unknown; tools?: unknown; toolConfig?: unknown }): GoogleErrorBody | null {
  if (req.systemInstruction === undefined && req.tools === undefined && req.toolConfig === undefined) return null;
  return googleError(400, 'Tool config, tools and system instruction should not be set in the request when using cached content.');
}
