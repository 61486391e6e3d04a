// Google's token sources, emulated from vertex-ai.md §3 alone (shares no code with providers/):
// the GCE/GKE metadata server (§3.4: `/computeMetadata/v1/...`, `Metadata-Flavor: Google` asked
// and echoed) and the OAuth 2.0 token endpoint of the service-account flow (§3.6: a form POST
// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<RS256 JWT>`), whose JWT is
// verified against the public key of a registered service account. Every token it issues is
// remembered with its expiry, so the Vertex routes accept only live tokens it issued.
// Lifetimes are scriptable (FIFO) so tests can force a refresh; failures are scriptable too.

import { createVerify, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const METADATA_PREFIX = '/computeMetadata/v1/';
export const TOKEN_PATH = '/token';
/** The `aud` Google's libraries put in the JWT (the real endpoint's URL). */
const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';

export type TokenSource = 'metadata' | 'oauth' | 'direct';

export interface IssuedToken {
  token: string;
  source: TokenSource;
  /** Service-account email the token stands for. */
  subject: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface GoogleAuthEmulatorOptions {
  /** `project/project-id` of the metadata server (default `sidegate-emulator`). */
  projectId?: string;
  /** Email of the metadata server's default service account. */
  email?: string;
}

export type TokenCheck = 'ok' | 'expired' | 'unknown';

export class GoogleAuthEmulator {
  readonly projectId: string;
  readonly email: string;
  /** Every token issued, oldest first. */
  readonly issued: IssuedToken[] = [];
  readonly #byToken = new Map<string, IssuedToken>();
  readonly #publicKeys = new Map<string, string>();
  readonly #lifetimes: number[] = [];
  readonly #failures: Array<{ source: 'metadata' | 'oauth'; status: number }> = [];

  constructor(options: GoogleAuthEmulatorOptions = {}) {
    this.projectId = options.projectId ?? 'sidegate-emulator';
    this.email = options.email ?? `gateway@${this.projectId}.iam.gserviceaccount.com`;
  }

  /** Accept JWTs signed by this service account's key (PEM public key). */
  addServiceAccount(email: string, publicKeyPem: string): void {
    this.#publicKeys.set(email, publicKeyPem);
  }

  /** Lifetimes in seconds of the next tokens issued, in order; then the default 3600. */
  scriptTokenLifetimes(...seconds: number[]): void {
    this.#lifetimes.push(...seconds);
  }

  /** The next token request of `source` answers `status` (once per call). */
  failNextTokenRequest(source: 'metadata' | 'oauth', status: number): void {
    this.#failures.push({ source, status });
  }

  /** Issues a token without a token request (the raw-token path: what `gcloud auth print-access-token` prints). */
  issueToken(lifetimeSeconds = 3600, subject = this.email): string {
    return this.#issue('direct', subject, lifetimeSeconds).token;
  }

  /** Tokens issued through one source. */
  issuedBy(source: TokenSource): IssuedToken[] {
    return this.issued.filter((t) => t.source === source);
  }

  check(token: string): TokenCheck {
    const t = this.#byToken.get(token);
    if (t === undefined) return 'unknown';
    return t.expiresAt > Date.now() ? 'ok' : 'expired';
  }

  clear(): void {
    this.issued.length = 0;
    this.#byToken.clear();
    this.#lifetimes.length = 0;
    this.#failures.length = 0;
  }

  matches(path: string): boolean {
    return path.startsWith(METADATA_PREFIX) || path === METADATA_PREFIX.slice(0, -1) || path === TOKEN_PATH;
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams | undefined): Promise<void> {
    if (path === TOKEN_PATH) return this.#token(req, res);
    req.resume();
    const headers = { 'metadata-flavor': 'Google' };
    if (req.headers['metadata-flavor'] !== 'Google') {
      text(res, 403, 'Missing required header "Metadata-Flavor"', headers);
      return;
    }
    const item = path.slice(METADATA_PREFIX.length).replace(/\/$/, '');
    switch (item) {
      case 'instance':
      case '':
        text(res, 200, 'attributes/\nhostname\nid\nservice-accounts/\nzone\n', headers);
        return;
      case 'project/project-id':
        text(res, 200, this.projectId, headers);
        return;
      case 'instance/service-accounts/default/email':
        text(res, 200, this.email, headers);
        return;
      case 'instance/service-accounts/default/token': {
        const scopes = query?.get('scopes');
        if (scopes != null && !scopes.split(',').includes(CLOUD_PLATFORM)) {
          json(res, 400, { error: 'invalid_scope' }, headers);
          return;
        }
        const failure = this.#takeFailure('metadata');
        if (failure !== undefined) {
          text(res, failure, 'metadata server failure (scripted)', headers);
          return;
        }
        const t = this.#issue('metadata', this.email);
        json(res, 200, { access_token: t.token, expires_in: Math.round((t.expiresAt - Date.now()) / 1000), token_type: 'Bearer' }, headers);
        return;
      }
      default:
        text(res, 404, 'Not Found', headers);
    }
  }

  async #token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST') {
      json(res, 405, { error: 'invalid_request', error_description: 'POST only' });
      return;
    }
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    if (form.get('grant_type') !== JWT_BEARER) {
      json(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' });
      return;
    }
    const verified = this.#verifyAssertion(form.get('assertion') ?? '', `http://${req.headers.host ?? ''}${TOKEN_PATH}`);
    if (typeof verified === 'string') {
      json(res, 400, { error: 'invalid_grant', error_description: verified });
      return;
    }
    const failure = this.#takeFailure('oauth');
    if (failure !== undefined) {
      json(res, failure, { error: 'internal_failure', error_description: 'token endpoint failure (scripted)' });
      return;
    }
    const t = this.#issue('oauth', verified.subject);
    json(res, 200, { access_token: t.token, expires_in: Math.round((t.expiresAt - Date.now()) / 1000), token_type: 'Bearer' });
  }

  /** The JWT's subject, or why it is refused (Google's own `invalid_grant` texts where known). */
  #verifyAssertion(jwt: string, ownAudience: string): { subject: string } | string {
    const parts = jwt.split('.');
    if (parts.length !== 3) return 'Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.';
    const [head, body, signature] = parts as [string, string, string];
    let header: { alg?: unknown };
    let claims: { iss?: unknown; sub?: unknown; aud?: unknown; scope?: unknown; exp?: unknown; iat?: unknown };
    try {
      header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return 'Invalid JWT: not JSON.';
    }
    if (header.alg !== 'RS256') return 'Invalid JWT: alg must be RS256.';
    const email = typeof claims.iss === 'string' ? claims.iss : '';
    const key = this.#publicKeys.get(email);
    if (key === undefined) return 'Invalid grant: account not found';
    const verifier = createVerify('RSA-SHA256');
    verifier.update(`${head}.${body}`);
    if (!verifier.verify(key, Buffer.from(signature, 'base64url'))) return 'Invalid JWT Signature.';
    if (claims.aud !== GOOGLE_TOKEN_AUDIENCE && claims.aud !== ownAudience) return 'Invalid JWT: audience.';
    const now = Date.now() / 1000;
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number' || claims.exp < now || claims.iat > now + 300 || claims.exp - claims.iat > 3600) {
      return 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.';
    }
    if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes(CLOUD_PLATFORM)) return 'Invalid JWT: scope.';
    return { subject: email };
  }

  #takeFailure(source: 'metadata' | 'oauth'): number | undefined {
    const i = this.#failures.findIndex((f) => f.source === source);
    if (i < 0) return undefined;
    return this.#failures.splice(i, 1)[0]!.status;
  }

  #issue(source: TokenSource, subject: string, lifetimeSeconds?: number): IssuedToken {
    const seconds = lifetimeSeconds ?? this.#lifetimes.shift() ?? 3600;
    const t: IssuedToken = { token: `ya29.emu-${randomBytes(24).toString('base64url')}`, source, subject, expiresAt: Date.now() + seconds * 1000 };
    this.issued.push(t);
    this.#byToken.set(t.token, t);
    return t;
  }
}

function text(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, Object.assign({ 'content-type': 'application/text' }, headers));
  res.end(body);
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, Object.assign({ 'content-type': 'application/json; charset=utf-8' }, headers));
  res.end(JSON.stringify(body));
}
