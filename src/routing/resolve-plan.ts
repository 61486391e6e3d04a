/**
 * Turns a request's routing config and credentials (both from the request context, parsed by
 * the server) into its plan: the config (if any) and a resolver from a config leaf to the
 * concrete `Target`. Built once per request; leaves are resolved lazily as routing reaches them,
 * so a fallback target's credential is only needed when it is tried. Without a config the one
 * target is resolved here, so a missing key or an unknown virtual key fails before any span starts.
 */
import type { ConfigTarget, RoutingConfig, RoutingConfigStore } from '../config/routing-config.js';
import { resolveTarget, type RequestCredentials, type ResolvedTarget, type TargetEnvironment } from './resolve-target.js';

export interface RoutePlan {
  /** Undefined: one target from the headers, tried once. */
  config?: RoutingConfig;
  /** The target of a config leaf (undefined: no config). Throws 400/401 for bad credentials. */
  resolveTarget(leaf: ConfigTarget | undefined): ResolvedTarget;
}

/** What the server needs to build request contexts and plans (settings and stores). */
export interface PlanEnvironment extends TargetEnvironment {
  configs: RoutingConfigStore;
  /** Default per-attempt timeout (`SIDEGATE_UPSTREAM_TIMEOUT_MS`). */
  timeoutMs: number;
}

export function resolvePlan(
  request: { config?: RoutingConfig | undefined; credentials: RequestCredentials },
  env: TargetEnvironment,
): RoutePlan {
  const cache = new Map<string, ResolvedTarget>();
  const resolve = (leaf: ConfigTarget | undefined): ResolvedTarget => {
    const key = leaf?.path ?? '';
    let target = cache.get(key);
    if (target === undefined) cache.set(key, (target = resolveTarget(leaf, request.credentials, env)));
    return target;
  };
  if (request.config === undefined) resolve(undefined);
  return { resolveTarget: resolve, ...(request.config !== undefined ? { config: request.config } : {}) };
}
