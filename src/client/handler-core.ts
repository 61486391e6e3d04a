/**
 * What the LangChain.js and LlamaIndex.TS handlers share: their options, the gateway key and base
 * URL defaults (§5.3: `SIDEGATE_API_KEY`, then `PORTKEY_API_KEY`), the metadata split into the
 * trace id and the string keys added to every log, and the batcher that sends those logs.
 * Framework-free, so neither entry point imports the other's framework.
 */
import { DEFAULT_BASE_URL } from './create-client.js';
import { LogBatcher } from './log-batcher.js';

export interface SidegateHandlerOptions {
  /** Gateway key; default env `SIDEGATE_API_KEY`, then `PORTKEY_API_KEY`. */
  apiKey?: string;
  /** Gateway base URL including `/v1`; default `http://localhost:8787/v1`. */
  baseURL?: string;
  /** Added to every log; `traceId` names the trace (default: the root run's id). */
  metadata?: { user_name?: string; traceId?: string; [key: string]: string | undefined };
  batchSize?: number;
  flushIntervalMs?: number;
  /** Called when logs could not be sent (default: one console warning). */
  onError?: (error: Error) => void;
  /** The fetch used for logs and wrapped for the framework's OpenAI client (default the global fetch). */
  fetch?: typeof fetch;
}

export interface HandlerCore {
  apiKey: string;
  baseURL: string;
  traceId: string | undefined;
  /** The metadata's string values other than `traceId`. */
  metadata: Record<string, string>;
  batcher: LogBatcher;
  /** The fetch to wrap with the run's ids. */
  baseFetch: typeof fetch;
}

export function createHandlerCore(options: SidegateHandlerOptions): HandlerCore {
  const apiKey = options.apiKey ?? envValue('SIDEGATE_API_KEY') ?? envValue('PORTKEY_API_KEY') ?? '';
  const baseURL = options.baseURL ?? DEFAULT_BASE_URL;
  const { traceId, ...rest } = options.metadata ?? {};
  const metadata = Object.fromEntries(Object.entries(rest).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const baseFetch = options.fetch ?? fetch;
  const batcher = new LogBatcher({
    apiKey,
    baseURL,
    ...(options.batchSize !== undefined ? { batchSize: options.batchSize } : {}),
    ...(options.flushIntervalMs !== undefined ? { flushIntervalMs: options.flushIntervalMs } : {}),
    ...(options.onError !== undefined ? { onError: options.onError } : {}),
    fetch: baseFetch,
  });
  return { apiKey, baseURL, traceId, metadata, batcher, baseFetch };
}

function envValue(name: string): string | undefined {
  const v = typeof process === 'undefined' ? undefined : process.env[name]?.trim();
  return v ? v : undefined;
}
