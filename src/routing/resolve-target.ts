/**
 * Turns one leaf of a routing config (or no config) plus the request's credential headers into
 * the concrete `Target` a provider is called with. Pure: virtual keys are looked up through the
 * injected store, base URLs and the custom-host allow-list come from settings.
 *
 * Precedence: a config target's own `api_key` / `virtual_key` > `x-gateway-virtual-key` >
 * `x-gateway-provider: @slug` > `Authorization`. Provider: the config target's, else the
 * virtual key's, else `x-gateway-provider`. Base URL: `custom_host` of the config, else
 * `x-gateway-custom-host`, else the virtual key's, else the provider default. Hosts given per
 * request (config or header) must be on `SIDEGATE_CUSTOM_HOSTS`; a virtual key's host was set
 * by an admin and is trusted.
 *
 * Vertex AI (`vertex-ai`): project and region from the config target, else the virtual key, else
 * `x-gateway-vertex-project-id` / `x-gateway-vertex-region`; region `global` when none is given
 * (as `@google/genai` defaults). The credential may be absent (the pod's ADC). `Authorization`
 * counts for a Vertex target only when it holds a Google credential (an OAuth `ya29.` token or
 * an `AIza` key): an OpenAI client must send some key, and its placeholder must not be taken
 * for a token. A config target's service-account key wins over `Authorization`. The base URL is
 * the region's Google host unless `SIDEGATE_VERTEX_BASE_URL` or a custom host replaces it.
 */
import { AuthError, InvalidRequestError } from '../errors.js';
import type { ConfigTarget } from '../config/routing-config.js';
import type { VirtualKey } from '../keys/virtual-key-store.js';
import type { ProviderName, Target, VertexTarget } from '../providers/provider.js';
import { isGoogleApiKey } from '../providers/vertex/vertex-credential.js';
import { VERTEX_EXPRESS_ORIGIN, vertexOrigin } from '../providers/vertex/vertex-endpoint.js';

/** A target as routing holds it: what a provider gets, plus the config's `override_params`, which routing merges into the request once (`apply-overrides.ts`). */
export interface ResolvedTarget extends Target {
  overrideParams?: Readonly<Record<string, unknown>>;
}

/** What the request headers say (already parsed; `@slug` split off into `virtualKey`). */
export interface RequestCredentials {
  provider?: ProviderName | undefined;
  /** `x-gateway-virtual-key`, else the slug of `x-gateway-provider: @slug`. */
  virtualKey?: string | undefined;
  /** From `Authorization`. */
  apiKey?: string | undefined;
  /** `x-gateway-custom-host`. */
  customHost?: string | undefined;
  /** `x-gateway-vertex-project-id`, `x-gateway-vertex-region`. */
  vertexProjectId?: string | undefined;
  vertexRegion?: string | undefined;
  strictCompliance: boolean;
  /** Default per-attempt timeout (settings). */
  timeoutMs: number;
}

export interface TargetEnvironment {
  virtualKeys: { get(slug: string): VirtualKey | undefined };
  /**
   * Default base URL per provider, e.g. `{ google: settings.geminiBaseUrl, openai: 'https://api.openai.com' }`.
   * Vertex AI's default depends on the region (`vertexOrigin`); `SIDEGATE_VERTEX_BASE_URL` replaces it.
   */
  baseUrls: Readonly<Record<'google' | 'openai', string>> & { readonly 'vertex-ai'?: string | undefined };
  /** `SIDEGATE_CUSTOM_HOSTS`: host names (or `host:port`) a request may point a target at. */
  customHosts: readonly string[];
}

export function resolveTarget(node: ConfigTarget | undefined, creds: RequestCredentials, env: TargetEnvironment): ResolvedTarget {
  const path = node?.path;
  let apiKey: string | undefined;
  let vk: VirtualKey | undefined;
  let fromAuthorization = false;
  const slug = node?.virtualKey ?? (node?.apiKey === undefined && node?.vertexServiceAccountJson === undefined ? creds.virtualKey : undefined);
  if (node?.apiKey !== undefined) apiKey = node.apiKey;
  else if (node?.vertexServiceAccountJson !== undefined) apiKey = '';
  else if (slug !== undefined) {
    vk = env.virtualKeys.get(slug);
    if (!vk) {
      // Named only when it looks like a slug: a key pasted into the header must not be echoed.
      const named = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(slug) && slug.length < 32 ? ` @${slug}` : '';
      throw new AuthError(`unknown virtual key${named}`, {
        code: 'unknown_virtual_key',
        param: node?.virtualKey !== undefined ? `${path}.virtual_key` : 'x-gateway-virtual-key',
      });
    }
    apiKey = vk.apiKey;
  } else {
    apiKey = creds.apiKey;
    fromAuthorization = apiKey !== undefined;
  }

  const provider = node?.provider ?? vk?.provider ?? creds.provider;
  if (provider === undefined) {
    throw new InvalidRequestError('no provider: send x-gateway-provider (google, vertex-ai, openai or @slug) or set provider in the config', {
      param: path ? `${path}.provider` : 'x-gateway-provider',
      code: 'missing_provider',
    });
  }
  let vertex: VertexTarget | undefined;
  if (provider === 'vertex-ai') {
    if (apiKey === undefined || (fromAuthorization && !isGoogleCredential(apiKey))) apiKey = '';
    vertex = vertexTarget(node, vk, creds);
  }
  if (apiKey === undefined) {
    throw new AuthError('missing provider key: send it in the Authorization header, or use a virtual key', {
      code: 'missing_provider_key',
    });
  }

  const requested = node?.customHost ?? creds.customHost;
  if (requested !== undefined) {
    checkCustomHost(requested, env.customHosts, node?.customHost !== undefined ? `${path}.custom_host` : 'x-gateway-custom-host');
  }
  const baseUrl = (requested ?? vk?.customHost ?? defaultBaseUrl(provider, env, apiKey, vertex)).replace(/\/+$/, '');
  const model = node?.overrideParams.model;
  const hasOverrides = node !== undefined && Object.keys(node.overrideParams).length > 0;

  return {
    provider,
    apiKey,
    baseUrl,
    ...(typeof model === 'string' ? { model } : {}),
    ...(hasOverrides ? { overrideParams: { ...node.overrideParams } } : {}),
    strictCompliance: node?.strictCompliance ?? creds.strictCompliance,
    timeoutMs: node?.requestTimeoutMs ?? creds.timeoutMs,
    ...(vertex !== undefined ? { vertex } : {}),
  };
}

/** An OAuth access token (`ya29.…`, every Google-issued one) or a Google API key. */
function isGoogleCredential(value: string): boolean {
  return value.startsWith('ya29.') || isGoogleApiKey(value);
}

function vertexTarget(node: ConfigTarget | undefined, vk: VirtualKey | undefined, creds: RequestCredentials): VertexTarget {
  const projectId = node?.vertexProjectId ?? vk?.vertex?.projectId ?? creds.vertexProjectId;
  const serviceAccountJson = node?.vertexServiceAccountJson ?? vk?.vertex?.serviceAccountJson;
  return {
    region: node?.vertexRegion ?? vk?.vertex?.region ?? creds.vertexRegion ?? 'global',
    ...(projectId !== undefined ? { projectId } : {}),
    ...(serviceAccountJson !== undefined ? { serviceAccountJson } : {}),
  };
}

function defaultBaseUrl(provider: ProviderName, env: TargetEnvironment, apiKey: string, vertex: VertexTarget | undefined): string {
  if (provider !== 'vertex-ai') return env.baseUrls[provider];
  return env.baseUrls['vertex-ai'] ?? (isGoogleApiKey(apiKey) ? VERTEX_EXPRESS_ORIGIN : vertexOrigin(vertex?.region ?? 'global'));
}

/** Throws a 400 unless `url` is http(s) on an allowed host. */
export function checkCustomHost(url: string, allowed: readonly string[], param: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidRequestError('custom host is not a URL', { param, code: 'invalid_custom_host' });
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const hostPort = `${host}:${parsed.port}`;
  const ok =
    (parsed.protocol === 'http:' || parsed.protocol === 'https:') &&
    allowed.some((entry) => {
      const e = entry.trim().toLowerCase().replace(/^\[|\]$/g, '');
      return e === host || e === hostPort;
    });
  if (!ok) {
    throw new InvalidRequestError(`custom host ${host} is not allowed (add it to SIDEGATE_CUSTOM_HOSTS)`, {
      param,
      code: 'custom_host_not_allowed',
    });
  }
}
