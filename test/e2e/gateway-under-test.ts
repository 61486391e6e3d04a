/**
 * The gateway as the end-to-end suites run it: in-process, with the real OTel SDK exporting OTLP to
 * `otlpEndpoint` (Jaeger or the collector) from the span export worker, as `sidegate serve` does, the Gemini emulator standing in for Google, and the
 * official `openai` SDK pointed at it.
 */
import OpenAI from 'openai';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Settings } from '../../src/config/settings.js';
import { startGateway, type RunningGateway } from '../../src/gateway/start-gateway.js';
import { createTelemetry, type SidegateTelemetry } from '../../src/telemetry/create-telemetry.js';
import { E2E_EXPORT_WORKER_URL } from './export-worker-build.js';

/** OTLP enums as they come back from Jaeger's api/v3. */
export const SERVER = 2; // SpanKind
export const CLIENT = 3;
export const ERROR = 2; // StatusCode

export interface GatewayUnderTest {
  emulator: Emulator;
  gateway: RunningGateway;
  telemetry: SidegateTelemetry;
  client: OpenAI;
  close(): Promise<void>;
}

export async function startGatewayUnderTest(options: {
  otlpEndpoint: string;
  serviceName: string;
  gatewayKey: string;
  providerKey: string;
  env?: Record<string, string>;
  settings?: Partial<Settings>;
}): Promise<GatewayUnderTest> {
  const emulator = await startEmulator({ apiKeys: [options.providerKey] });
  const telemetry = createTelemetry({
    env: {
      OTEL_SERVICE_NAME: options.serviceName,
      OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint,
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRICS_EXPORTER: 'none',
      SIDEGATE_OTLP_WORKER: 'true',
      ...options.env,
    },
    exportWorkerUrl: E2E_EXPORT_WORKER_URL,
  });
  const gateway = await startGateway(
    { port: 0, geminiBaseUrl: emulator.url, apiKeys: [options.gatewayKey], ...options.settings },
    { telemetry, serviceName: options.serviceName, log: () => {} },
  );
  const client = new OpenAI({
    baseURL: `${gateway.url}/v1`,
    apiKey: options.providerKey,
    maxRetries: 0,
    defaultHeaders: { 'x-gateway-api-key': options.gatewayKey, 'x-gateway-provider': 'google' },
  });
  return {
    emulator,
    gateway,
    telemetry,
    client,
    async close() {
      await gateway.close();
      await emulator.close();
    },
  };
}
