/**
 * The `x-gateway-*` request headers of sidegate options, for any HTTP client (and for the
 * `openai` client `createClient` builds). Pure: reads no environment; `createClient` applies the
 * env defaults. Values are never logged, and errors never quote them (a key can be among them).
 */

/** A routing config: an object (sent as JSON) or the id of a config stored in the gateway. */
export type SidegateConfig = string | Record<string, unknown>;

/** The per-call options: everything that may differ from one request to the next. */
export interface SidegateRequestOptions {
  /** Upstream provider: `google`, `openai`, or `@slug` for a virtual key. */
  provider?: string;
  /** Virtual-key slug (with or without `@`); overrides `provider`'s slug. */
  virtualKey?: string;
  /** Routing config object or the id of a stored one. */
  config?: SidegateConfig;
  /** Trace id (any string; the gateway maps non-hex ids deterministically). */
  traceId?: string;
  /** Alias of `traceId` (the Portkey SDK's spelling). */
  traceID?: string;
  /** Id of the gateway's request span, so logs and feedback can name it. */
  spanId?: string;
  /** The span the gateway's request span hangs under. */
  parentSpanId?: string;
  /** Name of the gateway's request span (default `chat {model}`). */
  spanName?: string;
  /** Metadata: becomes `gateway.metadata.<key>` span attributes. Numbers and booleans are sent as strings. */
  metadata?: Record<string, string | number | boolean>;
  /** `false` turns on the non-OpenAI response fields (thought signatures, content_parts…). */
  strictCompliance?: boolean;
  /** Raw provider key, sent as `Authorization: Bearer …` (only to the gateway). */
  providerKey?: string;
}

/** Options of `createHeaders`: the per-call options plus the gateway key. */
export interface SidegateHeaderOptions extends SidegateRequestOptions {
  /** Gateway key (`x-gateway-api-key`). */
  apiKey?: string;
}

export function createHeaders(options: SidegateHeaderOptions): Record<string, string> {
  const h: Record<string, string> = {};
  const set = (name: string, value: string | undefined) => {
    if (value !== undefined && value !== '') h[name] = value;
  };
  set('x-gateway-api-key', options.apiKey);
  set('x-gateway-provider', options.provider);
  set('x-gateway-virtual-key', options.virtualKey);
  if (options.config !== undefined) {
    set('x-gateway-config', typeof options.config === 'string' ? options.config : JSON.stringify(options.config));
  }
  set('x-gateway-trace-id', options.traceId ?? options.traceID);
  set('x-gateway-span-id', options.spanId);
  set('x-gateway-parent-span-id', options.parentSpanId);
  set('x-gateway-span-name', options.spanName);
  if (options.metadata !== undefined) set('x-gateway-metadata', JSON.stringify(metadataStrings(options.metadata)));
  if (options.strictCompliance !== undefined) set('x-gateway-strict-compliance', String(options.strictCompliance));
  if (options.providerKey !== undefined && options.providerKey !== '') h.authorization = `Bearer ${options.providerKey}`;
  return h;
}

/** The gateway takes metadata as a JSON object of strings. */
function metadataStrings(metadata: Record<string, unknown>): Record<string, string> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new TypeError('sidegate: metadata must be an object of string values');
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    else throw new TypeError(`sidegate: metadata.${key} must be a string, number or boolean`);
  }
  return out;
}
