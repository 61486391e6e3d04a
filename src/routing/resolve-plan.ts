/**
 * Turns a request's routing and credential headers into its plan: the routing config (if any)
 * and a resolver from a config leaf to the concrete `Target`. Built once per request; leaves are
 * resolved lazily as routing reaches them, so a fallback target's credential is only needed when
 * it is tried. Without a config the one target is resolved here, so a missing key or an unknown
 * virtual key fails before any span starts.
 *
 * Headers (each read through the x-portkey- alias table): `x-gateway-config`,
 * `x-gateway-provider` (`google`, `openai` or `@slug`), `x-gateway-virtual-key`, `Authorization`,
 * `x-gateway-custom-host`, `x-gateway-strict-compliance`, `x-gateway-request-timeout`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { canonicalHeader } from '../config/header-aliases.js';
import type { ConfigTarget, RoutingConfig, RoutingConfigStore } from '../config/routing-config.js';
import { InvalidRequestError } from '../errors.js';
import type { ProviderName, Target } from '../providers/provider.js';
import { resolveTarget, type RequestCredentials, type TargetEnvironment } from './resolve-target.js';

export interface RoutePlan {
  /** Undefined: one target from the headers, tried once. */
  config?: RoutingConfig;
  /** The target of a config leaf (undefined: no config). Throws 400/401 for bad credentials. */
  resolveTarget(leaf: ConfigTarget | undefined): Target;
}

export interface PlanEnvironment extends TargetEnvironment {
  configs: RoutingConfigStore;
  /** Default per-attempt timeout (`SIDEGATE_UPSTREAM_TIMEOUT_MS`). */
  timeoutMs: number;
}

const PROVIDERS: Readonly<Record<string, ProviderName>> = { google: 'google', gemini: 'google', openai: 'openai' };

export async function resolvePlan(headers: IncomingHttpHeaders, env: PlanEnvironment): Promise<RoutePlan> {
  const creds = requestCredentials(headers, env.timeoutMs);
  const configHeader = canonicalHeader(headers, 'x-gateway-config');
  const config = configHeader === undefined ? undefined : await env.configs.resolve(configHeader);
  const cache = new Map<string, Target>();
  const resolve = (leaf: ConfigTarget | undefined): Target => {
    const key = leaf?.path ?? '';
    let target = cache.get(key);
    if (target === undefined) cache.set(key, (target = resolveTarget(leaf, creds, env)));
    return target;
  };
  if (config === undefined) resolve(undefined);
  return { ...(config !== undefined ? { config } : {}), resolveTarget: resolve };
}

/**
 * The provider credential of a request without routing config (files API): the same
 * `x-gateway-provider` / virtual-key / `Authorization` / custom-host headers as chat.
 */
export function resolveProviderCredential(headers: IncomingHttpHeaders, env: PlanEnvironment): { apiKey: string; baseUrl: string } {
  const target = resolveTarget(undefined, requestCredentials(headers, env.timeoutMs), env);
  return { apiKey: target.apiKey, baseUrl: target.baseUrl };
}

/** Parses the credential headers; throws 400 for an unsupported provider or a bad timeout. */
export function requestCredentials(headers: IncomingHttpHeaders, defaultTimeoutMs: number): RequestCredentials {
  const providerValue = canonicalHeader(headers, 'x-gateway-provider')?.trim();
  let provider: ProviderName | undefined;
  let slug: string | undefined;
  if (providerValue !== undefined) {
    if (providerValue.startsWith('@') && providerValue.length > 1) slug = providerValue.slice(1);
    else {
      provider = PROVIDERS[providerValue.toLowerCase()];
      if (!provider) {
        throw new InvalidRequestError(
          `unsupported provider ${JSON.stringify(providerValue.slice(0, 64))}; supported: google, openai, @<virtual-key>`,
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
  return {
    provider,
    virtualKey,
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
