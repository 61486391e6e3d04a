/**
 * `createClient`: the official `openai` client pointed at the gateway, so completions, streams and
 * embeddings keep the SDK's own types, plus the gateway's own routes (`logs`, `feedback`,
 * `traces`). Options become `x-gateway-*` default headers (create-headers.ts).
 *
 * - the gateway key defaults to `SIDEGATE_API_KEY`, then `PORTKEY_API_KEY`; the base URL to
 *   `http://localhost:8787/v1` (never `OPENAI_BASE_URL`: the SDK would otherwise read it);
 * - per-call options (`sidegate({...})`, or `{ sidegate: {...} }` in a call's options) are sent
 *   with that call only: they override the constructor's headers for it and are never stored;
 * - without `providerKey` no `Authorization` header is sent (the SDK insists on a key, so a
 *   placeholder is given to it and its header removed), so a virtual key or a config supplies it;
 * - no key is ever printed or put in an error message.
 */
import OpenAI, { type ClientOptions } from 'openai';
import { createHeaders, type SidegateConfig, type SidegateRequestOptions } from './create-headers.js';
import { Feedback, Logs, Traces } from './gateway-resources.js';

export const DEFAULT_BASE_URL = 'http://localhost:8787/v1';
const NO_PROVIDER_KEY = 'sidegate-no-provider-key';

/** The openai SDK's per-request options (second argument of every call). */
export type RequestOptions = Awaited<NonNullable<Parameters<OpenAI['get']>[1]>>;

export interface SidegateClientOptions extends SidegateRequestOptions {
  /** Gateway key (`x-gateway-api-key`); default env `SIDEGATE_API_KEY`, then `PORTKEY_API_KEY`. */
  apiKey?: string;
  /** Gateway base URL including `/v1`; default `http://localhost:8787/v1`. */
  baseURL?: string;
  /** Other `openai` client options (timeout, maxRetries, fetch, defaultHeaders…). */
  clientOptions?: Omit<ClientOptions, 'apiKey' | 'baseURL'>;
}

export class SidegateClient extends OpenAI {
  /** `POST /v1/logs`. */
  readonly logs: Logs;
  /** `POST /v1/feedback`, `PUT /v1/feedback/{id}`. */
  readonly feedback: Feedback;
  /** `GET /v1/traces/{id}`, `GET /v1/traces`. */
  readonly traces: Traces;

  constructor(options: SidegateClientOptions = {}) {
    const { apiKey, baseURL, clientOptions, providerKey, ...perCall } = options;
    const gatewayKey = apiKey ?? envValue('SIDEGATE_API_KEY') ?? envValue('PORTKEY_API_KEY');
    if (gatewayKey === undefined || gatewayKey === '') {
      throw new Error('sidegate: no gateway key; pass apiKey or set SIDEGATE_API_KEY (or PORTKEY_API_KEY)');
    }
    const headers: Record<string, string | null> = createHeaders({ ...perCall, apiKey: gatewayKey });
    if (providerKey === undefined || providerKey === '') headers.authorization = null;
    super({
      ...clientOptions,
      apiKey: providerKey || NO_PROVIDER_KEY,
      baseURL: baseURL ?? DEFAULT_BASE_URL,
      defaultHeaders: { ...headers, ...(clientOptions?.defaultHeaders as Record<string, string | null> | undefined) },
    });
    this.logs = new Logs(this);
    this.feedback = new Feedback(this);
    this.traces = new Traces(this);
  }

  /** Applies `{ sidegate: {...} }` given in a call's options, for that call only. */
  protected override async prepareOptions(options: Parameters<OpenAI['prepareOptions']>[0]): Promise<void> {
    await super.prepareOptions(options);
    const perCall = (options as { sidegate?: SidegateRequestOptions }).sidegate;
    if (perCall !== undefined) {
      options.headers = mergeHeaders(options.headers, sidegateHeaders(perCall));
      delete (options as { sidegate?: unknown }).sidegate;
    }
  }
}

/** The client: `createClient({ provider: 'google', providerKey })`. */
export function createClient(options: SidegateClientOptions = {}): SidegateClient {
  return new SidegateClient(options);
}

/**
 * Typed per-call options: `client.chat.completions.create(body, sidegate({ traceId }))`. Other
 * request options (timeout, signal…) may be passed as the second argument.
 */
export function sidegate<T extends object = object>(options: SidegateRequestOptions, requestOptions?: T): T & { headers: Record<string, string | null> } {
  const extra = requestOptions as { headers?: unknown } | undefined;
  const headers = { ...(extra?.headers as Record<string, string> | undefined), ...sidegateHeaders(options) };
  return { ...(requestOptions as T), headers };
}

function sidegateHeaders(options: SidegateRequestOptions): Record<string, string | null> {
  return createHeaders(options);
}

/** The call's own headers (any `HeadersLike`) with ours on top. */
function mergeHeaders(existing: RequestOptions['headers'], ours: Record<string, string | null>): RequestOptions['headers'] {
  if (existing === undefined || existing === null) return ours;
  if (typeof existing === 'object' && !Array.isArray(existing) && !(existing instanceof Headers) && !(Symbol.iterator in existing)) {
    return { ...(existing as Record<string, string | null>), ...ours };
  }
  const merged = new Headers(existing as ConstructorParameters<typeof Headers>[0]);
  for (const [name, value] of Object.entries(ours)) if (value !== null) merged.set(name, value);
  return merged;
}

function envValue(name: string): string | undefined {
  const v = typeof process === 'undefined' ? undefined : process.env[name]?.trim();
  return v === '' ? undefined : v;
}

export type { SidegateConfig, SidegateRequestOptions };
