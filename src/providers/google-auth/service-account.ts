/**
 * Credential source 3: a service-account key, through Google's auth library (`JWT` client: an
 * RS256 JWT signed with the key, exchanged at the token endpoint for an access token).
 *
 * `token_uri` of the key is honoured, as Go's `golang.org/x/oauth2/google` does (Envoy AI
 * Gateway's GCP auth); google-auth-library hard-codes `https://oauth2.googleapis.com/token`
 * (vertex-ai.md §3.6), so the token request's URL is rewritten on the client's own transporter.
 * A `token_uri` elsewhere than Google's endpoint must pass `allowTokenUri` (the gateway allows
 * `*.googleapis.com` and the `SIDEGATE_CUSTOM_HOSTS` list), so a key in a request's routing
 * config cannot make the gateway post to an arbitrary host.
 */
import { CLOUD_PLATFORM_SCOPE, expiryOf, loadGoogleAuth } from './load-google-auth.js';
import { GOOGLE_TOKEN_URI, type ServiceAccountKey } from './service-account-key.js';
import type { AccessToken } from './token-cache.js';

export interface ServiceAccountOptions {
  /** Passed to the library as `eagerRefreshThresholdMillis`, equal to the cache's margin. */
  refreshMarginMs: number;
  /** Whether the key's `token_uri` may be called (Google's own endpoint always may). */
  allowTokenUri: (url: URL) => boolean;
}

export class TokenUriNotAllowed extends Error {
  constructor(host: string) {
    super(`the key's token_uri host ${host} is not allowed (add it to SIDEGATE_CUSTOM_HOSTS)`);
  }
}

/** A fetcher of fresh tokens for one key; the client is built on its first call. */
export function serviceAccountTokenFetcher(key: ServiceAccountKey, options: ServiceAccountOptions): () => Promise<AccessToken> {
  let client: Promise<import('google-auth-library').JWT> | undefined;
  const build = async () => {
    const tokenUrl = new URL(key.tokenUri);
    const custom = key.tokenUri !== GOOGLE_TOKEN_URI;
    if (custom && !options.allowTokenUri(tokenUrl)) throw new TokenUriNotAllowed(tokenUrl.host);
    const { JWT } = await loadGoogleAuth();
    const jwt = new JWT({
      email: key.clientEmail,
      key: key.privateKey,
      ...(key.privateKeyId !== undefined ? { keyId: key.privateKeyId } : {}),
      scopes: [CLOUD_PLATFORM_SCOPE],
      eagerRefreshThresholdMillis: options.refreshMarginMs,
    });
    if (custom) {
      jwt.transporter.interceptors.request.add({
        resolved: async (config) => {
          if (config.url.toString() === GOOGLE_TOKEN_URI) config.url = tokenUrl;
          return config;
        },
      });
    }
    return jwt;
  };
  return async () => {
    client ??= build().catch((err: unknown) => {
      client = undefined;
      throw err;
    });
    const jwt = await client;
    const { token } = await jwt.getAccessToken();
    if (!token) throw new Error('the token endpoint answered without an access token');
    return { token, expiresAt: expiryOf(jwt.credentials.expiry_date, Date.now()) };
  };
}
