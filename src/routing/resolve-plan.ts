/**
 * Turns a request's credential and routing headers into the targets to try.
 * Foundation scope: one target from `x-gateway-provider` + `Authorization`. Routing configs and
 * virtual keys extend this (issue 5).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Settings } from '../config/settings.js';
import { AuthError, InvalidRequestError } from '../errors.js';
import type { ProviderName, Target } from '../providers/provider.js';
import { canonicalHeader } from '../config/header-aliases.js';

export interface PlannedTarget {
  target: Target;
  /** Where the target sits in the routing config, e.g. `config.targets[1]`; `default` without one. */
  path: string;
}

export interface RoutePlan {
  targets: PlannedTarget[];
}

const PROVIDERS: Readonly<Record<string, ProviderName>> = { google: 'google', gemini: 'google', openai: 'openai' };

export function resolvePlan(headers: IncomingHttpHeaders, settings: Settings): RoutePlan {
  const providerValue = canonicalHeader(headers, 'x-gateway-provider');
  if (!providerValue) {
    throw new InvalidRequestError('missing x-gateway-provider header (e.g. "google")', {
      param: 'x-gateway-provider',
      code: 'missing_provider',
    });
  }
  const provider = PROVIDERS[providerValue.toLowerCase()];
  if (!provider) {
    throw new InvalidRequestError(`unsupported provider ${JSON.stringify(providerValue.slice(0, 64))}; supported: google, openai`, {
      param: 'x-gateway-provider',
      code: 'unsupported_provider',
    });
  }
  const apiKey = providerKeyFromAuthorization(canonicalHeader(headers, 'authorization'));
  if (!apiKey) {
    throw new AuthError('missing provider key: send it in the Authorization header (bare or "Bearer <key>")', {
      code: 'missing_provider_key',
    });
  }
  const strict = canonicalHeader(headers, 'x-gateway-strict-compliance');
  return {
    targets: [
      {
        path: 'default',
        target: {
          provider,
          apiKey,
          baseUrl: settings.geminiBaseUrl,
          strictCompliance: strict === undefined ? true : strict.trim().toLowerCase() !== 'false',
          timeoutMs: settings.upstreamTimeoutMs,
        },
      },
    ],
  };
}

/** `Authorization` carries the provider key bare or as `Bearer <key>`; both occur (seed §4.1). */
export function providerKeyFromAuthorization(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const key = /^bearer\s+/i.test(trimmed) ? trimmed.replace(/^bearer\s+/i, '') : trimmed;
  return key.length > 0 ? key : undefined;
}
