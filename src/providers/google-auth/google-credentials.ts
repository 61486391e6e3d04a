/**
 * The gateway's Google credentials, one cache per credential (issue 22 item 2): a service-account
 * key (keyed by a hash of its JSON, never the JSON itself) or the pod's ADC, each behind a
 * `TokenCache` (refreshed before expiry, one refresh at a time). A raw token or an express key
 * passes through untouched. Failures become `GoogleCredentialError`, whose message names the
 * source and a safe reason (a status, a timeout), never a library's text, a token or a key field.
 */
import { createHash } from 'node:crypto';
import { applicationDefaultCredentials, type ApplicationDefaultCredentials } from './application-default.js';
import { parseServiceAccountKey, type ServiceAccountKey } from './service-account-key.js';
import { serviceAccountTokenFetcher, TokenUriNotAllowed } from './service-account.js';
import { DEFAULT_REFRESH_MARGIN_MS, TokenCache, TokenFetchTimeout } from './token-cache.js';

export type GoogleCredentialSource =
  | { kind: 'access-token'; token: string }
  | { kind: 'express-api-key'; apiKey: string }
  | { kind: 'service-account'; json: string }
  | { kind: 'application-default' };

export interface GoogleCredentialsOptions {
  refreshMarginMs?: number;
  fetchTimeoutMs?: number;
  /** Whether a key's non-Google `token_uri` may be called. Default: only `*.googleapis.com`. */
  allowTokenUri?: (url: URL) => boolean;
  /** Most service-account keys cached at once (least recently used dropped). Default 64. */
  maxKeys?: number;
}

export interface ResolvedCredential {
  /** What goes upstream: an access token, or the express key. */
  secret: string;
  /** The project the credential names (a key's `project_id`, ADC's project), if any. */
  projectId?: string;
}

export interface GoogleCredentials {
  /** `projectId`: the target's own project, which wins over the credential's. */
  resolve(source: GoogleCredentialSource, projectId: string | undefined): Promise<ResolvedCredential>;
  /** Upstream refused `secret` (401): the next call refreshes instead of reusing it. */
  invalidate(source: GoogleCredentialSource, secret: string): void;
}

export class GoogleCredentialError extends Error {
  constructor(
    readonly source: GoogleCredentialSource['kind'],
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function isGoogleApiHost(url: URL): boolean {
  return url.protocol === 'https:' && (url.hostname === 'googleapis.com' || url.hostname.endsWith('.googleapis.com'));
}

interface KeyEntry {
  key: ServiceAccountKey;
  tokens: TokenCache;
}

export function createGoogleCredentials(options: GoogleCredentialsOptions = {}): GoogleCredentials {
  const margin = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
  const cacheOptions = { refreshMarginMs: margin, ...(options.fetchTimeoutMs !== undefined ? { fetchTimeoutMs: options.fetchTimeoutMs } : {}) };
  const allowTokenUri = options.allowTokenUri ?? isGoogleApiHost;
  const maxKeys = options.maxKeys ?? 64;
  const keys = new Map<string, KeyEntry>();
  const adcs = new Map<string, { adc: ApplicationDefaultCredentials; tokens: TokenCache }>();

  const keyEntry = (json: string): KeyEntry => {
    const id = createHash('sha256').update(json).digest('base64url');
    let entry = keys.get(id);
    if (entry !== undefined) {
      keys.delete(id);
      keys.set(id, entry);
      return entry;
    }
    let key: ServiceAccountKey;
    try {
      key = parseServiceAccountKey(json);
    } catch (err) {
      throw new GoogleCredentialError('service-account', (err as Error).message);
    }
    entry = { key, tokens: new TokenCache(serviceAccountTokenFetcher(key, { refreshMarginMs: margin, allowTokenUri }), cacheOptions) };
    keys.set(id, entry);
    if (keys.size > maxKeys) keys.delete(keys.keys().next().value!);
    return entry;
  };

  const adcEntry = (projectId: string | undefined) => {
    const id = projectId ?? '';
    let entry = adcs.get(id);
    if (entry === undefined) {
      const adc = applicationDefaultCredentials({ refreshMarginMs: margin, ...(projectId !== undefined ? { projectId } : {}) });
      entry = { adc, tokens: new TokenCache(() => adc.fetchToken(), cacheOptions) };
      adcs.set(id, entry);
    }
    return entry;
  };

  return {
    async resolve(source, projectId) {
      switch (source.kind) {
        case 'access-token':
          return { secret: source.token, ...(projectId !== undefined ? { projectId } : {}) };
        case 'express-api-key':
          return { secret: source.apiKey };
        case 'service-account': {
          const entry = keyEntry(source.json);
          const secret = await guarded(source.kind, () => entry.tokens.get());
          const project = projectId ?? entry.key.projectId;
          return { secret, ...(project !== undefined ? { projectId: project } : {}) };
        }
        case 'application-default': {
          const entry = adcEntry(projectId);
          const [secret, project] = await guarded(source.kind, () =>
            Promise.all([entry.tokens.get(), projectId !== undefined ? projectId : entry.adc.projectId()]),
          );
          return { secret, projectId: project };
        }
        default: {
          const never: never = source;
          throw new Error(`unhandled credential source ${String(never)}`);
        }
      }
    },
    invalidate(source, secret) {
      if (source.kind === 'service-account') keys.get(createHash('sha256').update(source.json).digest('base64url'))?.tokens.invalidate(secret);
      else if (source.kind === 'application-default') for (const entry of adcs.values()) entry.tokens.invalidate(secret);
    },
  };
}

async function guarded<T>(source: GoogleCredentialSource['kind'], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw new GoogleCredentialError(source, safeReason(err));
  }
}

/**
 * Why a token could not be had, in words the gateway chose: a status, a timeout, a network
 * error code. The library's own message may quote an endpoint's answer, so it is not used.
 */
export function safeReason(err: unknown): string {
  if (err instanceof TokenFetchTimeout) return 'the token request timed out';
  if (err instanceof TokenUriNotAllowed) return err.message;
  const e = err as { response?: { status?: unknown }; status?: unknown; code?: unknown; message?: unknown } | null;
  const status = e?.response?.status ?? e?.status;
  if (typeof status === 'number') return `the token endpoint answered HTTP ${status}`;
  if (typeof e?.message === 'string' && e.message.startsWith('Could not load the default credentials')) {
    return 'no default credentials found (no GOOGLE_APPLICATION_CREDENTIALS, no gcloud credentials, no metadata server)';
  }
  if (typeof e?.message === 'string' && /project id/i.test(e.message)) return 'the project could not be determined; set vertex_project_id';
  if (typeof e?.code === 'string' && /^[A-Z_]{3,40}$/.test(e.code)) return `the token request failed (${e.code})`;
  return 'the token request failed';
}
