/**
 * Routing configs (`x-gateway-config`): one zod schema for the wire shape, then one pass that
 * applies inheritance, compiles conditions and checks names, producing a `RoutingConfig` tree
 * the routing engine only reads. Parsing happens once per distinct config (stored configs when
 * first loaded, inline ones through a bounded cache), never per attempt.
 *
 * Wire shape (snake_case, Portkey-compatible; see docs/routing.md):
 *   node     = { strategy?, targets?, name?, weight?, provider?, virtual_key?, api_key?,
 *                override_params?, custom_host?, retry?, strict_compliance?, request_timeout?,
 *                vertex_project_id?, vertex_region?, vertex_service_account_json? (Vertex AI targets),
 *                circuit_breaker? }
 *   strategy = { mode: single|fallback|loadbalance|conditional, on_status_codes?, conditions?, default? }
 *   retry    = { attempts (0..5, retries after the first try), on_status_codes?, use_retry_after_header?,
 *                budget_percent? }
 *   circuit_breaker = { failure_threshold?, cooldown_ms?, max_cooldown_ms?, on_all_open?: fail_fast|try }
 * A node with `targets` is a group and needs `strategy`; a node without is a target. Inner
 * nodes inherit `override_params` (merged, inner keys win), `retry`, `request_timeout`,
 * `custom_host` and `strict_compliance` from outer ones unless they set their own;
 * `circuit_breaker` is merged field by field (inner fields win).
 * Unknown keys are refused (400 naming them) rather than silently ignored. Aliases accepted for
 * configs written for Portkey: `use_retry_after_headers` (its docs' spelling),
 * `strict_open_ai_compliance`, and camelCase forms of every key.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { innermostIssue, issueParam } from '../issue-param.js';
import type { ProviderName } from '../providers/provider.js';
import { compileCondition, type ConditionPredicate } from './conditions.js';
import { findTooDeep, MAX_JSON_DEPTH } from '../openai/json-depth.js';
import { looksLikeSecret } from '../scrub-secrets.js';
import { parseServiceAccountKey } from '../providers/google-auth/service-account-key.js';
import { isVertexProjectId, isVertexRegion } from '../providers/vertex/vertex-endpoint.js';

export const DEFAULT_RETRY_STATUS_CODES: readonly number[] = Object.freeze([429, 500, 502, 503, 504]);
export const MAX_RETRY_ATTEMPTS = 5;

// ---------------------------------------------------------------------------------------------
// Wire schema

const StatusCodes = z.array(z.number().int().min(100).max(599)).min(1);

const RetryWire = z.strictObject({
  attempts: z.number().int().min(0).max(MAX_RETRY_ATTEMPTS),
  on_status_codes: StatusCodes.optional(),
  use_retry_after_header: z.boolean().optional(),
  /** Retries toward one target stay under this share of its requests over 10 s (routing/retry-budget.ts). */
  budget_percent: z.number().min(0).max(100).optional(),
});

const CircuitBreakerWire = z.strictObject({
  failure_threshold: z.number().int().min(1).max(1000).optional(),
  cooldown_ms: z.number().int().min(1).max(3_600_000).optional(),
  max_cooldown_ms: z.number().int().min(1).max(3_600_000).optional(),
  on_all_open: z.enum(['fail_fast', 'try']).optional(),
});

const ConditionWire = z.strictObject({
  query: z.record(z.string(), z.unknown()),
  then: z.string().min(1),
});

const StrategyWire = z.strictObject({
  mode: z.enum(['single', 'fallback', 'loadbalance', 'conditional']),
  on_status_codes: StatusCodes.optional(),
  conditions: z.array(ConditionWire).min(1).optional(),
  default: z.string().min(1).optional(),
});

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

interface NodeWire {
  strategy?: z.infer<typeof StrategyWire> | undefined;
  targets?: NodeWire[] | undefined;
  name?: string | undefined;
  weight?: number | undefined;
  provider?: string | undefined;
  virtual_key?: string | undefined;
  api_key?: string | undefined;
  override_params?: Record<string, unknown> | undefined;
  custom_host?: string | undefined;
  retry?: z.infer<typeof RetryWire> | undefined;
  strict_compliance?: boolean | undefined;
  request_timeout?: number | undefined;
  vertex_project_id?: string | undefined;
  vertex_region?: string | undefined;
  vertex_service_account_json?: string | Record<string, unknown> | undefined;
  circuit_breaker?: z.infer<typeof CircuitBreakerWire> | undefined;
}

/** The one schema of a config node (recursive through `targets`). */
export const RoutingConfigSchema: z.ZodType<NodeWire> = z.strictObject({
  strategy: StrategyWire.optional(),
  get targets() {
    return z.array(RoutingConfigSchema).min(1).optional();
  },
  name: z.string().min(1).optional(),
  weight: z.number().min(0).optional(),
  provider: z
    .string()
    .regex(/^(google|vertex-ai|openai|@[A-Za-z0-9][A-Za-z0-9._-]*)$/, 'must be google, vertex-ai, openai or @<virtual-key-slug>')
    .optional(),
  virtual_key: z.string().min(1).optional(),
  api_key: z.string().min(1).optional(),
  override_params: z.record(z.string(), z.unknown()).optional(),
  custom_host: HttpUrl.optional(),
  retry: RetryWire.optional(),
  strict_compliance: z.boolean().optional(),
  request_timeout: z.number().int().positive().max(3_600_000).optional(),
  vertex_project_id: z.string().refine(isVertexProjectId, 'must be a Google Cloud project ID').optional(),
  vertex_region: z.string().refine(isVertexRegion, 'must be a Google Cloud region, global, us or eu').optional(),
  // The key file's JSON, as a string or an object (Portkey takes both).
  vertex_service_account_json: z.union([z.string().min(2).max(65_536), z.record(z.string(), z.unknown())]).optional(),
  circuit_breaker: CircuitBreakerWire.optional(),
});

// ---------------------------------------------------------------------------------------------
// Parsed tree

export interface RetryPolicy {
  /** Retries after the first try of the same target (0 = no retry). */
  attempts: number;
  onStatusCodes: readonly number[];
  useRetryAfterHeader: boolean;
  /** `budget_percent`; undefined: the gateway's default (`SIDEGATE_RETRY_BUDGET_PERCENT`). */
  budgetPercent?: number;
}

/** `circuit_breaker` of a config; a field left out takes the gateway's default (routing/target-health.ts). */
export interface CircuitBreakerSettings {
  failureThreshold?: number;
  cooldownMs?: number;
  maxCooldownMs?: number;
  /** When every target a request could use is cooling down: answer 503 at once, or try the last one anyway. */
  onAllOpen?: 'fail_fast' | 'try';
}

/** Settings a node inherits from its ancestors (already resolved on every node). */
export interface InheritedSettings {
  /** Shallow-merged over the client's request body; `model` here picks the target's model. */
  overrideParams: Readonly<Record<string, unknown>>;
  retry: RetryPolicy;
  requestTimeoutMs?: number;
  customHost?: string;
  strictCompliance?: boolean;
  circuitBreaker?: CircuitBreakerSettings;
}

export type Strategy =
  | { mode: 'single' }
  | { mode: 'loadbalance' }
  /** `onStatusCodes` undefined = the default (429, 5xx); timeouts and connection errors always fall back. */
  | { mode: 'fallback'; onStatusCodes?: readonly number[] }
  | {
      mode: 'conditional';
      /** In order; the first whose `when` holds picks the child at `targetIndex`. */
      conditions: ReadonlyArray<{ when: ConditionPredicate; then: string; targetIndex: number }>;
      /** Child index used when no condition holds; undefined → 400. */
      defaultIndex?: number;
    };

export interface ConfigTarget extends InheritedSettings {
  kind: 'target';
  /** JSON path, e.g. `config.targets[1]` (for `x-gateway-last-used-option-index` and spans). */
  path: string;
  name?: string;
  weight: number;
  /** Undefined: the provider comes from the virtual key, else from the request headers. */
  provider?: ProviderName;
  virtualKey?: string;
  apiKey?: string;
  /** Vertex AI: project (a key's `project_id` when only the key is given), region, service-account key JSON. */
  vertexProjectId?: string;
  vertexRegion?: string;
  vertexServiceAccountJson?: string;
}

export interface ConfigGroup extends InheritedSettings {
  kind: 'group';
  path: string;
  name?: string;
  weight: number;
  strategy: Strategy;
  targets: readonly ConfigNode[];
}

export type ConfigNode = ConfigTarget | ConfigGroup;
export type RoutingConfig = ConfigNode;

const ROOT_PATH = 'config';

/**
 * Parses a config (already-decoded JSON, or a JSON string). Throws `InvalidRequestError` (400,
 * code `invalid_config`) whose `param` is the JSON path of the first problem.
 */
export function parseRoutingConfig(json: unknown): RoutingConfig {
  let raw = json;
  if (typeof json === 'string') {
    try {
      raw = JSON.parse(json);
    } catch {
      throw invalid('x-gateway-config is neither JSON nor a config id', 'x-gateway-config');
    }
  }
  if (findTooDeep(raw, MAX_JSON_DEPTH) !== undefined) {
    throw invalid(`nested deeper than ${MAX_JSON_DEPTH} levels`, ROOT_PATH);
  }
  const result = RoutingConfigSchema.safeParse(normalizeAliases(raw));
  if (!result.success) {
    const issue = innermostIssue(result.error.issues[0]!);
    const message = issue.code === 'unrecognized_keys' ? `unknown field ${String(issue.keys[0])}` : issue.message;
    throw invalid(message, issueParam(issue, ROOT_PATH));
  }
  return buildNode(result.data, ROOT_PATH, {
    overrideParams: {},
    retry: { attempts: 0, onStatusCodes: DEFAULT_RETRY_STATUS_CODES, useRetryAfterHeader: false },
  });
}

function buildNode(wire: NodeWire, path: string, parent: InheritedSettings): ConfigNode {
  const inherited: InheritedSettings = {
    overrideParams: wire.override_params ? { ...parent.overrideParams, ...wire.override_params } : parent.overrideParams,
    retry: wire.retry
      ? {
          attempts: wire.retry.attempts,
          onStatusCodes: wire.retry.on_status_codes ?? DEFAULT_RETRY_STATUS_CODES,
          useRetryAfterHeader: wire.retry.use_retry_after_header ?? false,
          ...optional('budgetPercent', wire.retry.budget_percent),
        }
      : parent.retry,
    ...optional('requestTimeoutMs', wire.request_timeout ?? parent.requestTimeoutMs),
    ...optional('customHost', wire.custom_host ?? parent.customHost),
    ...optional('strictCompliance', wire.strict_compliance ?? parent.strictCompliance),
    ...optional('circuitBreaker', buildCircuitBreaker(wire.circuit_breaker, parent.circuitBreaker, path)),
  };
  const common = { path, ...optional('name', wire.name), weight: wire.weight ?? 1 };

  if (wire.targets === undefined) {
    if (wire.strategy !== undefined) throw invalid('a strategy needs targets', `${path}.targets`);
    let provider = wire.provider;
    let virtualKey = wire.virtual_key;
    if (provider?.startsWith('@')) {
      if (virtualKey !== undefined) throw invalid('give the virtual key either as provider "@slug" or as virtual_key', `${path}.virtual_key`);
      virtualKey = provider.slice(1);
      provider = undefined;
    }
    if (virtualKey !== undefined && wire.api_key !== undefined) {
      throw invalid('a target takes either virtual_key or api_key', `${path}.api_key`);
    }
    const key = serviceAccountKey(wire, path);
    return {
      kind: 'target',
      ...common,
      ...inherited,
      ...optional('provider', provider as ProviderName | undefined),
      ...optional('virtualKey', virtualKey),
      ...optional('apiKey', wire.api_key),
      ...optional('vertexProjectId', wire.vertex_project_id ?? key?.projectId),
      ...optional('vertexRegion', wire.vertex_region),
      ...optional('vertexServiceAccountJson', key?.json),
    };
  }

  if (wire.strategy === undefined) throw invalid('targets need a strategy', `${path}.strategy`);
  for (const key of ['provider', 'virtual_key', 'api_key', 'vertex_project_id', 'vertex_region', 'vertex_service_account_json'] as const) {
    if (wire[key] !== undefined) throw invalid(`${key} belongs on a target, not on a node with targets`, `${path}.${key}`);
  }
  const targets = wire.targets.map((t, i) => buildNode(t, `${path}.targets[${i}]`, inherited));
  return { kind: 'group', ...common, ...inherited, strategy: buildStrategy(wire.strategy, targets, path), targets };
}

/** A target's service-account key, checked once when the config is parsed (400 naming the field, never a value). */
function serviceAccountKey(wire: NodeWire, path: string): { json: string; projectId?: string } | undefined {
  const raw = wire.vertex_service_account_json;
  if (raw === undefined) return undefined;
  const param = `${path}.vertex_service_account_json`;
  if (wire.api_key !== undefined || wire.virtual_key !== undefined) throw invalid('a target takes one credential: api_key, virtual_key or vertex_service_account_json', param);
  try {
    const key = parseServiceAccountKey(raw);
    return { json: typeof raw === 'string' ? raw : JSON.stringify(raw), ...optional('projectId', key.projectId) };
  } catch (err) {
    throw invalid((err as Error).message, param);
  }
}

function buildCircuitBreaker(
  wire: NodeWire['circuit_breaker'],
  parent: CircuitBreakerSettings | undefined,
  path: string,
): CircuitBreakerSettings | undefined {
  if (wire === undefined) return parent;
  const merged: CircuitBreakerSettings = Object.assign(
    {},
    parent,
    optional('failureThreshold', wire.failure_threshold),
    optional('cooldownMs', wire.cooldown_ms),
    optional('maxCooldownMs', wire.max_cooldown_ms),
    optional('onAllOpen', wire.on_all_open),
  );
  if (merged.cooldownMs !== undefined && merged.maxCooldownMs !== undefined && merged.maxCooldownMs < merged.cooldownMs) {
    throw invalid('max_cooldown_ms must be at least cooldown_ms', `${path}.circuit_breaker.max_cooldown_ms`);
  }
  return merged;
}

function buildStrategy(wire: NonNullable<NodeWire['strategy']>, targets: readonly ConfigNode[], path: string): Strategy {
  const at = `${path}.strategy`;
  if (wire.mode !== 'conditional') {
    if (wire.conditions !== undefined) throw invalid('conditions need mode conditional', `${at}.conditions`);
    if (wire.default !== undefined) throw invalid('default needs mode conditional', `${at}.default`);
  }
  if (wire.mode !== 'fallback' && wire.on_status_codes !== undefined) {
    throw invalid('on_status_codes needs mode fallback', `${at}.on_status_codes`);
  }
  switch (wire.mode) {
    case 'single':
      return { mode: 'single' };
    case 'fallback':
      return wire.on_status_codes ? { mode: 'fallback', onStatusCodes: wire.on_status_codes } : { mode: 'fallback' };
    case 'loadbalance':
      if (!targets.some((t) => t.weight > 0)) throw invalid('at least one target needs a weight above 0', `${path}.targets`);
      return { mode: 'loadbalance' };
    case 'conditional': {
      if (wire.conditions === undefined) throw invalid('mode conditional needs conditions', `${at}.conditions`);
      const indexOf = (name: string, param: string): number => {
        const i = targets.findIndex((t) => t.name === name);
        if (i === -1) throw invalid(`no target named ${JSON.stringify(name)}`, param);
        return i;
      };
      const conditions = wire.conditions.map((c, i) => ({
        when: compileCondition(c.query, `${at}.conditions[${i}].query`),
        then: c.then,
        targetIndex: indexOf(c.then, `${at}.conditions[${i}].then`),
      }));
      return {
        mode: 'conditional',
        conditions,
        ...optional('defaultIndex', wire.default === undefined ? undefined : indexOf(wire.default, `${at}.default`)),
      };
    }
    default: {
      const never: never = wire.mode;
      throw new Error(`unhandled strategy mode ${String(never)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Aliases

const NODE_ALIASES: Record<string, string> = {
  virtualKey: 'virtual_key',
  apiKey: 'api_key',
  overrideParams: 'override_params',
  customHost: 'custom_host',
  strictCompliance: 'strict_compliance',
  strict_open_ai_compliance: 'strict_compliance',
  strictOpenAiCompliance: 'strict_compliance',
  requestTimeout: 'request_timeout',
  vertexProjectId: 'vertex_project_id',
  vertexRegion: 'vertex_region',
  vertexServiceAccountJson: 'vertex_service_account_json',
  circuitBreaker: 'circuit_breaker',
};
const CIRCUIT_BREAKER_ALIASES: Record<string, string> = {
  failureThreshold: 'failure_threshold',
  cooldownMs: 'cooldown_ms',
  maxCooldownMs: 'max_cooldown_ms',
  onAllOpen: 'on_all_open',
};
const STRATEGY_ALIASES: Record<string, string> = { onStatusCodes: 'on_status_codes' };
const RETRY_ALIASES: Record<string, string> = {
  onStatusCodes: 'on_status_codes',
  use_retry_after_headers: 'use_retry_after_header',
  useRetryAfterHeader: 'use_retry_after_header',
  useRetryAfterHeaders: 'use_retry_after_header',
  budgetPercent: 'budget_percent',
};

/** Renames alias keys on the structural objects only (never inside override_params or queries). */
function normalizeAliases(node: unknown): unknown {
  if (!isPlainObject(node)) return node;
  const out = rename(node, NODE_ALIASES);
  if (isPlainObject(out.strategy)) out.strategy = rename(out.strategy, STRATEGY_ALIASES);
  if (isPlainObject(out.retry)) out.retry = rename(out.retry, RETRY_ALIASES);
  if (isPlainObject(out.circuit_breaker)) out.circuit_breaker = rename(out.circuit_breaker, CIRCUIT_BREAKER_ALIASES);
  if (Array.isArray(out.targets)) out.targets = out.targets.map(normalizeAliases);
  return out;
}

function rename(obj: Record<string, unknown>, aliases: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    const canonical = Object.hasOwn(aliases, key) ? aliases[key]! : key;
    // The canonical spelling wins when both are given.
    if (canonical !== key && Object.hasOwn(obj, canonical)) continue;
    out[canonical] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Stored configs and the header

/** Config ids are file names in `SIDEGATE_CONFIG_DIR` without `.json`; no paths. */
const CONFIG_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const INLINE_CACHE_SIZE = 256;

export interface RoutingConfigStore {
  /**
   * Resolves an `x-gateway-config` value: inline JSON (starts with `{`) or a stored config id.
   * Throws `InvalidRequestError` (400) for a bad config or an unknown id.
   */
  resolve(headerValue: string): Promise<RoutingConfig>;
}

/**
 * Stored configs are read from `{configDir}/{id}.json` on first use and parsed once; inline
 * configs are parsed once per distinct string (bounded LRU), so the hot path is a map lookup.
 */
export function createRoutingConfigStore(options: { configDir?: string | undefined }): RoutingConfigStore {
  const stored = new Map<string, RoutingConfig>();
  const inline = new Map<string, RoutingConfig>();

  return {
    async resolve(headerValue) {
      const value = headerValue.trim();
      if (value.startsWith('{')) {
        const hit = inline.get(value);
        if (hit) {
          inline.delete(value);
          inline.set(value, hit);
          return hit;
        }
        const parsed = parseRoutingConfig(value);
        inline.set(value, parsed);
        if (inline.size > INLINE_CACHE_SIZE) inline.delete(inline.keys().next().value!);
        return parsed;
      }
      const hit = stored.get(value);
      if (hit) return hit;
      if (!CONFIG_ID.test(value)) throw invalid('x-gateway-config is neither a JSON object nor a config id', 'x-gateway-config');
      if (options.configDir === undefined) {
        throw invalid('config ids need SIDEGATE_CONFIG_DIR; send the config as inline JSON', 'x-gateway-config');
      }
      let text: string;
      try {
        text = await readFile(join(options.configDir, `${value}.json`), 'utf8');
      } catch {
        throw invalid(looksLikeSecret(value) ? 'unknown config id' : `unknown config id ${JSON.stringify(value)}`, 'x-gateway-config');
      }
      const parsed = parseRoutingConfig(text);
      stored.set(value, parsed);
      return parsed;
    },
  };
}

// ---------------------------------------------------------------------------------------------

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(message: string, param: string): InvalidRequestError {
  return new InvalidRequestError(`invalid routing config: ${message}`, { param, code: 'invalid_config' });
}
