/**
 * One credential's access token, cached and refreshed before it expires, one refresh at a time
 * however many requests wait for it (issue 22 item 2: no stampede). A refresh that fails or takes
 * longer than `fetchTimeoutMs` rejects every waiter, never hangs them; the next call tries again.
 *
 * The refresh margin is below the 4-5 minutes before expiry at which metadata servers start
 * handing out a new token (vertex-ai.md §3.5), so a metadata-server token is not refetched on
 * every call near its end.
 */
export interface AccessToken {
  token: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface TokenCacheOptions {
  /** A token this close to its expiry is refreshed before use. Default 3 minutes. */
  refreshMarginMs?: number;
  /** A refresh taking longer fails. Default 10 s (Envoy AI Gateway's GCP token timeout). */
  fetchTimeoutMs?: number;
  /** Injected for tests. */
  now?: () => number;
}

export const DEFAULT_REFRESH_MARGIN_MS = 3 * 60_000;

export class TokenFetchTimeout extends Error {
  constructor() {
    super('token request timed out');
  }
}

export class TokenCache {
  #current: AccessToken | undefined;
  #refreshing: Promise<AccessToken> | undefined;
  readonly #margin: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(
    private readonly fetchToken: () => Promise<AccessToken>,
    options: TokenCacheOptions = {},
  ) {
    this.#margin = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
    this.#timeoutMs = options.fetchTimeoutMs ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** A token valid for at least the margin, refreshing (once, shared) when needed. */
  async get(): Promise<string> {
    const current = this.#current;
    if (current !== undefined && current.expiresAt - this.#margin > this.#now()) return current.token;
    this.#refreshing ??= this.#refresh();
    return (await this.#refreshing).token;
  }

  /** Forgets the cached token (upstream refused it), so the next call refreshes. */
  invalidate(token: string): void {
    if (this.#current?.token === token) this.#current = undefined;
  }

  async #refresh(): Promise<AccessToken> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TokenFetchTimeout()), this.#timeoutMs);
        timer.unref();
      });
      const fresh = await Promise.race([this.fetchToken(), timeout]);
      this.#current = fresh;
      return fresh;
    } finally {
      clearTimeout(timer);
      this.#refreshing = undefined;
    }
  }
}
