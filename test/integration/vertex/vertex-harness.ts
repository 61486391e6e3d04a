/**
 * The Vertex suites' world: the emulator (Gemini, Vertex paths, metadata server, token endpoint)
 * and the gateway with `SIDEGATE_VERTEX_BASE_URL` at it, the real OpenTelemetry SDK exporting
 * into memory, a temp data dir for virtual keys, log lines kept, and a test service account
 * (an RSA key pair made with node:crypto, its public key registered with the token endpoint).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startEmulator, type Emulator } from '../../../src/emulator/index.js';
import { startGateway, type RunningGateway } from '../../../src/gateway/start-gateway.js';
import { createTelemetry } from '../../../src/telemetry/create-telemetry.js';

export const GATEWAY_KEY = 'vertex-gateway-key';
export const ADMIN_KEY = 'vertex-admin-key-0123456789';
export const AI_STUDIO_KEY = 'ai-studio-key-123';
export const PROJECT = 'sidegate-emulator';
export const REGION = 'us-central1';

export interface VertexWorld {
  emulator: Emulator;
  gateway: RunningGateway;
  exporter: InMemorySpanExporter;
  logs: string[];
  dataDir: string;
  /** A new service account: its key JSON (token_uri at the emulator) with the public key registered. */
  serviceAccount(options?: { register?: boolean }): { json: Record<string, string>; email: string };
  attempts(traceparent: string | null): ReadableSpan[];
  close(): Promise<void>;
}

export async function startVertexWorld(): Promise<VertexWorld> {
  const exporter = new InMemorySpanExporter();
  const telemetry = createTelemetry({ env: { OTEL_METRICS_EXPORTER: 'none' }, logger: () => {}, spanProcessorOverride: new SimpleSpanProcessor(exporter) });
  const emulator = await startEmulator({ port: 0, apiKeys: [AI_STUDIO_KEY] });
  const dataDir = await mkdtemp(join(tmpdir(), 'sidegate-vertex-'));
  const logs: string[] = [];
  const gateway = await startGateway(
    {
      port: 0,
      geminiBaseUrl: emulator.url,
      vertexBaseUrl: emulator.url,
      apiKeys: [GATEWAY_KEY],
      adminKey: ADMIN_KEY,
      dataDir,
      customHosts: ['127.0.0.1'],
    },
    { telemetry, log: (line) => logs.push(line) },
  );
  const time = (s: ReadableSpan) => s.startTime[0] * 1e9 + s.startTime[1];
  return {
    emulator,
    gateway,
    exporter,
    logs,
    dataDir,
    serviceAccount({ register = true } = {}) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const email = `sa-${randomBytes(4).toString('hex')}@${PROJECT}.iam.gserviceaccount.com`;
      if (register) emulator.googleAuth.addServiceAccount(email, publicKey.export({ type: 'spki', format: 'pem' }).toString());
      const json = {
        type: 'service_account',
        project_id: PROJECT,
        private_key_id: randomBytes(20).toString('hex'),
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: email,
        client_id: '1234567890',
        token_uri: `${emulator.url}/token`,
      };
      return { json, email };
    },
    attempts(traceparent) {
      const id = traceparent?.split('-')[1];
      return exporter
        .getFinishedSpans()
        .filter((s) => s.spanContext().traceId === id && s.kind === SpanKind.CLIENT)
        .sort((a, b) => time(a) - time(b));
    },
    async close() {
      await gateway.close();
      await emulator.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
