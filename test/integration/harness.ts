/**
 * Starts the Gemini emulator and the gateway on free loopback ports for one suite, and builds an
 * official `openai` SDK client pointed at the gateway.
 */
import OpenAI from 'openai';
import { startEmulator } from '../../src/emulator/index.js';
import type { Settings } from '../../src/config/settings.js';
import { startGateway, type GatewayDeps, type RunningGateway } from '../../src/gateway/start-gateway.js';

export const GATEWAY_KEY = 'test-gateway-key';
export const PROVIDER_KEY = 'test-provider-key-123';

export type Emulator = Awaited<ReturnType<typeof startEmulator>>;

export interface Harness {
  emulator: Emulator;
  gateway: RunningGateway;
  client: OpenAI;
  /** Headers a well-behaved raw-HTTP client sends. */
  headers: Record<string, string>;
  close(): Promise<void>;
}

export async function startHarness(settings: Partial<Settings> = {}, deps: GatewayDeps = {}): Promise<Harness> {
  const emulator = await startEmulator({ port: 0 });
  const gateway = await startGateway(
    { port: 0, geminiBaseUrl: emulator.url, apiKeys: [GATEWAY_KEY], ...settings },
    { log: () => {}, ...deps },
  );
  const headers = {
    'content-type': 'application/json',
    'x-gateway-api-key': GATEWAY_KEY,
    'x-gateway-provider': 'google',
    authorization: `Bearer ${PROVIDER_KEY}`,
  };
  const client = new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: PROVIDER_KEY,
    defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google' },
    maxRetries: 0,
  });
  return {
    emulator,
    gateway,
    client,
    headers,
    async close() {
      await gateway.close();
      await emulator.close();
    },
  };
}

/** POSTs raw JSON (or raw text) to the gateway's chat route. */
export function postChat(h: Harness, body: unknown, headers: Record<string, string> = h.headers) {
  return fetch(`${h.gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * The whole head of a raw `POST /v1/chat/completions` with the harness's keys, for tests that
 * write to a socket themselves: `headerLines` (each ending in `\r\n`, e.g. a `content-length`)
 * go after the fixed headers, then the blank line that ends the head.
 */
export const rawChatHead = (port: number, headerLines = '') =>
  `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-gateway-api-key: ${GATEWAY_KEY}\r\n` +
  `x-gateway-provider: google\r\nauthorization: Bearer ${PROVIDER_KEY}\r\ncontent-type: application/json\r\n${headerLines}\r\n`;

/** Splits an SSE body into its `data:` payloads. */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice('data: '.length));
}
