/**
 * Builds and starts the gateway: settings → providers → telemetry → HTTP server. Used by
 * `sidegate serve`, the demo, the benchmarks and the integration suites (which pass options
 * instead of env). Also owns graceful shutdown: readiness fails first, in-flight requests finish
 * (bounded by `shutdownGraceMs`), then telemetry flushes. The doors it serves are named in
 * `front-doors.ts`.
 */
// First: holds V8's young generation at its initial size while the rest loads and the gateway starts.
import { releaseYoungGeneration } from '../server/hold-young-generation.js';
import { createServer, type Server } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createRoutingConfigStore } from '../config/routing-config.js';
import { settingsWithDefaults, type Settings } from '../config/settings.js';
import { createMediaFetcher } from '../media/fetch-media.js';
import { virtualKeyStoreFromSettings, type VirtualKeyStore } from '../keys/virtual-key-store.js';
import { createGeminiProvider } from '../providers/gemini/gemini-provider.js';
import { createOpenAIProvider } from '../providers/openai/openai-provider.js';
import { lazyProvider } from '../providers/lazy-provider.js';
import type { Provider } from '../providers/provider.js';
import type { PlanEnvironment } from '../routing/resolve-plan.js';
import type { ProviderRegistry } from '../routing/route-request.js';
import { TargetHealthRegistry } from '../routing/target-health-registry.js';
import { noopTelemetry } from '../telemetry/noop-telemetry.js';
import { SpanIdRegistry } from '../telemetry/span-id-registry.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { openPromptStore, type PromptStore } from '../prompts/prompt-store.js';
import { createApp, healthRoutes, type Route } from '../server/app.js';
import { frontDoorRoutes } from './front-doors.js';
import { createGatewayKeyCheck } from '../server/auth.js';
import type { TraceReader } from '../traces/trace-reader.js';
import { openLogsQuota } from '../logs/logs-quota.js';
import { guardConnections, isRefusedConnection, serverOptions, type ServerLimits } from '../server/connection-guard.js';
import { trackInflight } from '../server/track-inflight.js';
import { readCgroupMemoryLimit } from '../overload/memory-limit.js';
import { admitRequest, defaultInflightBudget, InflightBudget } from '../overload/inflight-budget.js';
import { settleRefusedConnection } from '../server/refused-body.js';
import { sendError } from '../server/respond.js';
import type { OperationDeps } from '../server/open-operation.js';
import { createContextPropagator, type RequestContextEnv } from '../server/request-context.js';
import { responseStoreFromSettings } from '../responses/response-store-from-settings.js';

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
  /** Replaces the prompt store built from settings (embedding, tests); not closed by the gateway. */
  prompts?: PromptStore;
  /** Extra routes added after the built-in ones (a route with the same method and path replaces the built-in one). */
  routes?: Route[];
  /**
   * `OTEL_PROPAGATORS`: which W3C headers the request context reads (default both). Read by the
   * gateway whether or not the SDK is enabled, so turning telemetry off changes no answer.
   */
  propagators?: ReadonlyArray<'tracecontext' | 'baggage'>;
  /** Span ids chosen by clients (Decision 1); share it with anything else that names span ids (logs). */
  spanIds?: SpanIdRegistry;
  log?: (line: string) => void;
}

export interface RunningGateway {
  url: string;
  port: number;
  /** Port of the probe-only server when `healthPort` is set. */
  healthPort: number | undefined;
  server: Server;
  settings: Settings;
  /** Bytes held by in-flight requests and answers, against `SIDEGATE_MAX_INFLIGHT_BYTES`. */
  budget: InflightBudget;
  /** Stops accepting requests, lets in-flight ones finish (bounded), flushes telemetry. */
  close(): Promise<void>;
}

export async function startGateway(partial: Partial<Settings> = {}, deps: GatewayDeps = {}): Promise<RunningGateway> {
  try {
    return await buildAndListen(partial, deps);
  } finally {
    // Start-up is over (listening, or failed): the young generation grows with traffic again.
    releaseYoungGeneration();
  }
}

async function buildAndListen(partial: Partial<Settings>, deps: GatewayDeps): Promise<RunningGateway> {
  const settings = settingsWithDefaults(partial);
  const telemetry = deps.telemetry ?? noopTelemetry;
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // One pool per upstream origin, as large as the client-side connection cap: every client
  // connection can have its upstream call in flight, so a healthy upstream never makes a request
  // wait for a connection (issue 15 item 3).
  const budget = new InflightBudget(settings.maxInflightBytes ?? defaultInflightBudget(readCgroupMemoryLimit()));
  const upstream = {
    maxConnections: settings.upstreamMaxConnections,
    maxAnswerBytes: settings.maxUpstreamAnswerBytes,
    bodyIdleTimeoutMs: settings.upstreamTimeoutMs,
    maxEventBytes: settings.maxUpstreamEventBytes,
    budget,
  };
  const providers: ProviderRegistry = {
    // Any other public media URL is refused unless fetching is turned on (DESIGN Decision 11).
    google: createGeminiProvider(settings.fetchMediaUrls ? Object.assign({ fetchMedia: createMediaFetcher() }, upstream) : upstream),
    openai: createOpenAIProvider(upstream),
    // Loaded on the first Vertex call, with Google's auth library after it (issue 22).
    'vertex-ai': lazyProvider({ name: 'vertex-ai', telemetryName: 'gcp.vertex_ai', operationName: 'generate_content' }, async () => {
      const { createVertexProvider } = await import('../providers/vertex/vertex-provider.js');
      // A key's token_uri may name Google's hosts or an allowed custom host (SIDEGATE_CUSTOM_HOSTS).
      return createVertexProvider(Object.assign({ tokenHosts: settings.customHosts }, upstream));
    }),
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
    baseUrls: { google: settings.geminiBaseUrl, openai: settings.openaiBaseUrl, 'vertex-ai': settings.vertexBaseUrl },
    customHosts: settings.customHosts,
    timeoutMs: settings.upstreamTimeoutMs,
  };

  const logsQuota = await openLogsQuota(settings.dataDir, settings.logsPerMonth);
  const contextEnv: RequestContextEnv = {
    configs: planEnv.configs,
    timeoutMs: planEnv.timeoutMs,
    spanIds: deps.spanIds ?? telemetry.spanIds ?? new SpanIdRegistry(),
    propagator: createContextPropagator(deps.propagators),
  };
  // Per process (DESIGN Decision 20): this sidecar's view of its targets, shared by every request.
  const targetHealth = new TargetHealthRegistry({ circuitBreaker: settings.circuitBreaker, retryBudgetPercent: settings.retryBudgetPercent });
  telemetry.observeTargetHealth?.(() => targetHealth.readings());
  const operationDeps: OperationDeps = { telemetry, providers, targetEnv: planEnv, targetHealth, log };
  const responseStore = await responseStoreFromSettings(settings);
  const prompts =
    deps.prompts ?? (await openPromptStore({ dir: settings.promptsDir ?? join(settings.dataDir, 'prompts'), logger: { warn: log } }));

  let draining = false;
  const routes: Route[] = [
    ...healthRoutes(() => draining, telemetry.renderMetrics?.bind(telemetry)),
    ...frontDoorRoutes({
      settings,
      contextEnv,
      operationDeps,
      planEnv,
      virtualKeys,
      prompts,
      responseStore,
      logsQuota,
      traceReader: deps.traceReader,
      serviceName: deps.serviceName ?? 'sidegate',
    }),
    ...(deps.routes ?? []),
  ];
  const app = createApp({ routes, checkGatewayKey: createGatewayKeyCheck(settings.apiKeys), log });

  const limits: ServerLimits = {
    headersTimeoutMs: settings.headersTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    keepAliveTimeoutMs: settings.keepAliveTimeoutMs,
    maxConnections: settings.maxConnections,
  };
  const inflight = trackInflight(() => draining);
  const server = createServer(serverOptions(limits), (req, res) => {
    if (isRefusedConnection(req)) return;
    inflight.add(res);
    try {
      // Before a byte of the body is read: a declared body that does not fit the budget is refused.
      // File uploads are spooled (to disk past a small in-memory part) and never held whole, so they are not counted.
      if (!isStreamedUpload(req.url)) admitRequest(req, res, budget);
    } catch (err) {
      settleRefusedConnection(req, res, err);
      sendError(res, err);
      return;
    }
    void app(req, res);
  });
  guardConnections(server, limits);

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
    healthServer = createServer(serverOptions(limits), (req, res) => {
      if (!isRefusedConnection(req)) void healthApp(req, res);
    });
    guardConnections(healthServer, limits);
    await listen(healthServer, settings.healthPort, '0.0.0.0');
  }
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Drain (issue 15 item 5): readiness fails, no new connection is accepted, every answer from
      // now on says `Connection: close`, each connection closes as soon as it is idle, and the
      // drain ends when the last in-flight answer has been written (or the grace runs out).
      draining = true;
      // Stop accepting connections only: node's http `close()` would also close idle keep-alive
      // connections at once, racing with a request a client is sending on one (see track-inflight).
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      inflight.startDrain(server);
      let graceTimer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, settings.shutdownGraceMs)));
      await Promise.race([inflight.drained(), grace]);
      clearTimeout(graceTimer);
      server.closeAllConnections();
      await Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, 1000).unref())]);
      await Promise.allSettled(Object.values(providers).map((p) => p?.close?.()));
      if (!deps.virtualKeys) virtualKeys.close();
      await responseStore.close?.();
      if (!deps.prompts) prompts.close();
      await telemetry.shutdown(5_000);
      if (healthServer) {
        healthServer.closeAllConnections();
        await new Promise<void>((resolve) => healthServer!.close(() => resolve()));
      }
    })());

  const healthPort = healthServer ? (healthServer.address() as AddressInfo).port : undefined;
  return { url: `http://${host}:${port}`, port, healthPort, server, settings, budget, close };
}

/** `POST /v1/files` spools its body (files/spool-part.ts) instead of holding it in memory. */
function isStreamedUpload(url: string | undefined): boolean {
  return url === '/v1/files' || url?.startsWith('/v1/files?') === true;
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
