/**
 * The credential and target headers of a request, parsed once into `RequestCredentials` (part
 * of the request context, DESIGN Decision 18). Each is read through the x-portkey- alias table:
 * `x-gateway-provider` (`google`, `openai` or `@slug`), `x-gateway-virtual-key`, `Authorization`,
 * `x-gateway-custom-host`, `x-gateway-strict-compliance`, `x-gateway-request-timeout`, and for
 * Vertex AI `x-gateway-vertex-project-id` / `x-gateway-vertex-region`.
 * Pure; throws `InvalidRequestError` (400) for an unsupported provider, a bad timeout, or a
 * project or region that is not a Google name (they become URL path segments).
 */
import type { IncomingHttpHeaders } from 'node:http';
import { canonicalHeader } from '../config/header-aliases.js';
import { InvalidRequestError } from '../errors.js';
import type { ProviderName } from '../providers/provider.js';
import type { RequestCredentials } from '../routing/resolve-target.js';
import { isVertexProjectId, isVertexRegion } from '../providers/vertex/vertex-endpoint.js';
import { looksLikeSecret } from '../scrub-secrets.js';

export type { RequestCredentials };

const PROVIDERS: Readonly<Record<string, ProviderName>> = { google: 'google', gemini: 'google', openai: 'openai', 'vertex-ai': 'vertex-ai' };

export function readCredentialHeaders(headers: IncomingHttpHeaders, defaultTimeoutMs: number): RequestCredentials {
  const providerValue = canonicalHeader(headers, 'x-gateway-provider')?.trim();
  let provider: ProviderName | undefined;
  let slug: string | undefined;
  if (providerValue !== undefined) {
    if (providerValue.startsWith('@') && providerValue.length > 1) slug = providerValue.slice(1);
    else {
      provider = PROVIDERS[providerValue.toLowerCase()];
      if (!provider) {
        throw new InvalidRequestError(
          // A key pasted into the wrong header must not come back in the answer.
          `unsupported provider${looksLikeSecret(providerValue) ? '' : ` ${JSON.stringify(providerValue.slice(0, 64))}`}; supported: google, vertex-ai, openai, @<virtual-key>`,
          { param: 'x-gateway-provider', code: 'unsupported_provider' },
        );
      }
    }
  }
  const override = canonicalHeader(headers, 'x-gateway-virtual-key')?.trim();
  const virtualKey = override !== undefined ? override.replace(/^@/, '') : slug;
  const strict = canonicalHeader(headers, 'x-gateway-strict-compliance');
  const timeoutHeader = canonicalHeader(headers, 'x-gateway-request-timeout');
  let timeoutMs = defaultTimeoutMs;
  if (timeoutHeader !== undefined) {
    const n = Number(timeoutHeader.trim());
    if (!Number.isInteger(n) || n <= 0 || n > 3_600_000) {
      throw new InvalidRequestError('x-gateway-request-timeout must be a positive number of milliseconds', {
        param: 'x-gateway-request-timeout',
        code: 'invalid_request_timeout',
      });
    }
    timeoutMs = n;
  }
  const vertexProjectId = vertexName(headers, 'x-gateway-vertex-project-id', isVertexProjectId);
  const vertexRegion = vertexName(headers, 'x-gateway-vertex-region', isVertexRegion);
  return {
    provider,
    virtualKey,
    ...(vertexProjectId !== undefined ? { vertexProjectId } : {}),
    ...(vertexRegion !== undefined ? { vertexRegion } : {}),
    apiKey: providerKeyFromAuthorization(canonicalHeader(headers, 'authorization')),
    customHost: canonicalHeader(headers, 'x-gateway-custom-host')?.trim(),
    strictCompliance: strict === undefined ? true : strict.trim().toLowerCase() !== 'false',
    timeoutMs,
  };
}

/** `Authorization` carries the provider key bare or as `Bearer <key>`; both occur (seed §4.1). */
export function providerKeyFromAuthorization(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const key = value.trim().replace(/^bearer\s+/i, '');
  return key.length > 0 ? key : undefined;
}

function vertexName(headers: IncomingHttpHeaders, name: string, valid: (value: string) => boolean): string | undefined {
  const value = canonicalHeader(headers, name)?.trim();
  if (value === undefined) return undefined;
  if (!valid(value)) {
    throw new InvalidRequestError(`${name}: not a Google Cloud ${name.endsWith('region') ? 'region' : 'project ID'}`, {
      param: name,
      code: 'invalid_vertex_target',
    });
  }
  return value;
}
