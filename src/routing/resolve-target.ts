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
 */
import { AuthError, InvalidRequestError } from '../errors.js';
import type { ConfigTarget } from '../config/routing-config.js';
import type { VirtualKey } from '../keys/virtual-key-store.js';
import type { ProviderName, Target } from '../providers/provider.js';

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
  strictCompliance: boolean;
  /** Default per-attempt timeout (settings). */
  timeoutMs: number;
}

export interface TargetEnvironment {
  virtualKeys: { get(slug: string): VirtualKey | undefined };
  /** Default base URL per provider, e.g. `{ google: settings.geminiBaseUrl, openai: 'https://api.openai.com' }`. */
  baseUrls: Readonly<Record<ProviderName, string>>;
  /** `SIDEGATE_CUSTOM_HOSTS`: host names (or `host:port`) a request may point a target at. */
  customHosts: readonly string[];
}

export function resolveTarget(node: ConfigTarget | undefined, creds: RequestCredentials, env: TargetEnvironment): ResolvedTarget {
  const path = node?.path;
  let apiKey: string | undefined;
  let vk: VirtualKey | undefined;
  const slug = node?.virtualKey ?? (node?.apiKey === undefined ? creds.virtualKey : undefined);
  if (node?.apiKey !== undefined) apiKey = node.apiKey;
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
  } else apiKey = creds.apiKey;

  const provider = node?.provider ?? vk?.provider ?? creds.provider;
  if (provider === undefined) {
    throw new InvalidRequestError('no provider: send x-gateway-provider (google, openai or @slug) or set provider in the config', {
      param: path ? `${path}.provider` : 'x-gateway-provider',
      code: 'missing_provider',
    });
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
  const baseUrl = (requested ?? vk?.customHost ?? env.baseUrls[provider]).replace(/\/+$/, '');
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
  };
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
