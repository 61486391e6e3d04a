/**
 * Builds and starts the gateway: settings → providers → telemetry → HTTP server. Used by
 * `sidegate serve`, the demo, the benchmarks and the integration suites (which pass options
 * instead of env). Also owns graceful shutdown: readiness fails first, in-flight requests finish
 * (bounded by `shutdownGraceMs`), then telemetry flushes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRoutingConfigStore } from '../config/routing-config.js';
import { settingsWithDefaults, type Settings } from '../config/settings.js';
import { createFilesRoutes } from '../files/files-route.js';
import { createMediaFetcher } from '../media/fetch-media.js';
import { virtualKeyStoreFromSettings, type VirtualKeyStore } from '../keys/virtual-key-store.js';
import { createGeminiProvider } from '../providers/gemini/gemini-provider.js';
import { createOpenAIProvider } from '../providers/openai/openai-provider.js';
import type { Provider } from '../providers/provider.js';
import { resolveProviderCredential, type PlanEnvironment } from '../routing/resolve-plan.js';
import type { ProviderRegistry } from '../routing/route-request.js';
import { noopTelemetry } from '../telemetry/noop-telemetry.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { createAdminRoutes } from './admin-routes.js';
import { createApp, healthRoutes, type Route } from './app.js';
import { createGatewayKeyCheck } from './auth.js';
import { createChatRoute } from './chat-route.js';
import { createFeedbackRoutes } from './feedback-route.js';
import { createLogsRoute } from './logs-route.js';
import { createTracesRoutes } from './traces-route.js';
import { createJaegerReader } from '../traces/jaeger-reader.js';
import type { TraceReader } from '../traces/trace-reader.js';
import { openLogsQuota } from '../logs/logs-quota.js';
import { createModelsRoutes } from './models-route.js';

export interface GatewayDeps {
  telemetry?: Telemetry;
  /** Replace or add upstream implementations (tests, embedding). */
  providers?: Partial<Record<keyof ProviderRegistry, Provider>>;
  /** Replaces the virtual-key store built from settings (embedding); not closed by the gateway. */
  virtualKeys?: VirtualKeyStore;
  /** Reads traces back for `GET /v1/traces`; default: Jaeger at `SIDEGATE_TRACES_URL`, if set. */
  traceReader?: TraceReader;
  /** `service.name` of the gateway's spans (`OTEL_SERVICE_NAME`), the service `GET /v1/traces` lists. Default `sidegate`. */
  serviceName?: string;
  /** Extra routes (files, logs, feedback, admin…) contributed by other modules. */
  routes?: Route[];
  log?: (line: string) => void;
}

export interface RunningGateway {
  url: string;
  port: number;
  /** Port of the probe-only server when `healthPort` is set. */
  healthPort: number | undefined;
  server: Server;
  settings: Settings;
  /** Stops accepting requests, lets in-flight ones finish (bounded), flushes telemetry. */
  close(): Promise<void>;
}

export async function startGateway(partial: Partial<Settings> = {}, deps: GatewayDeps = {}): Promise<RunningGateway> {
  const settings = settingsWithDefaults(partial);
  const telemetry = deps.telemetry ?? noopTelemetry;
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const providers: ProviderRegistry = {
    // Any other public media URL is refused unless fetching is turned on (DESIGN Decision 11).
    google: createGeminiProvider({
      maxEventBytes: settings.maxUpstreamEventBytes,
      ...(settings.fetchMediaUrls ? { fetchMedia: createMediaFetcher() } : {}),
    }),
    openai: createOpenAIProvider({ maxEventBytes: settings.maxUpstreamEventBytes }),
    ...deps.providers,
  };
  const virtualKeys =
    deps.virtualKeys ??
    (await virtualKeyStoreFromSettings({
      dataDir: settings.dataDir,
      masterKey: settings.masterKey,
      keysFile: settings.virtualKeysFile,
      logger: { warn: log },
    }));
  const planEnv: PlanEnvironment = {
    virtualKeys,
    configs: createRoutingConfigStore({ configDir: settings.configDir }),
    baseUrls: { google: settings.geminiBaseUrl, openai: settings.openaiBaseUrl },
    customHosts: settings.customHosts,
    timeoutMs: settings.upstreamTimeoutMs,
  };

  const logsQuota = await openLogsQuota(settings.dataDir, settings.logsPerMonth);

  let draining = false;
  const routes: Route[] = [
    ...healthRoutes(() => draining, telemetry.renderMetrics?.bind(telemetry)),
    { method: 'POST', path: '/v1/chat/completions', handler: createChatRoute({ settings, telemetry, providers, planEnv }) },
    ...createFilesRoutes({
      settings,
      resolveProviderKey: (headers) => resolveProviderCredential(headers, planEnv),
    }),
    ...createModelsRoutes({ providers, planEnv }),
    ...createAdminRoutes({ adminKey: settings.adminKey, virtualKeys }),
    { method: 'POST', path: '/v1/logs', handler: createLogsRoute({ telemetry, quota: logsQuota, maxBodyBytes: settings.maxBodyBytes }) },
    ...createFeedbackRoutes({ telemetry, maxBodyBytes: settings.maxBodyBytes }),
    ...createTracesRoutes({
      reader: deps.traceReader ?? (settings.tracesUrl !== undefined ? createJaegerReader({ url: settings.tracesUrl }) : undefined),
      serviceName: deps.serviceName ?? 'sidegate',
    }),
    ...(deps.routes ?? []),
  ];
  const app = createApp({ routes, checkGatewayKey: createGatewayKeyCheck(settings.apiKeys), log });

  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0, headersTimeout: 60_000 }, (req, res) => {
    void app(req, res);
  });
  // A client error (malformed HTTP) must never take the process down.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });

  await listen(server, settings.port, settings.host);
  const { port } = server.address() as AddressInfo;

  // Probes on their own port, on all interfaces, while the API stays on loopback (Decision 12).
  let healthServer: Server | undefined;
  if (settings.healthPort !== undefined) {
    const healthApp = createApp({
      routes: healthRoutes(() => draining, telemetry.renderMetrics?.bind(telemetry)),
      checkGatewayKey: () => {},
      log,
    });
    healthServer = createServer((req, res) => void healthApp(req, res));
    await listen(healthServer, settings.healthPort, '0.0.0.0');
  }
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const grace = new Promise<void>((resolve) => setTimeout(resolve, settings.shutdownGraceMs).unref());
      await Promise.race([closed, grace]);
      server.closeAllConnections();
      await Promise.allSettled(Object.values(providers).map((p) => p?.close?.()));
      if (!deps.virtualKeys) virtualKeys.close();
      await telemetry.shutdown(5_000);
      if (healthServer) {
        healthServer.closeAllConnections();
        await new Promise<void>((resolve) => healthServer!.close(() => resolve()));
      }
    })());

  const healthPort = healthServer ? (healthServer.address() as AddressInfo).port : undefined;
  return { url: `http://${host}:${port}`, port, healthPort, server, settings, close };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
