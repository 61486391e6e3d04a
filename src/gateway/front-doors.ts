/**
 * The route table: names every front door of the gateway and where its code lives. Chat
 * completions and the virtual-key admin routes are built at start; every other door is declared
 * here but imported on its first request (`server/lazy-routes.ts`), so a sidecar that serves only
 * chat completions never compiles or holds their schemas and translators. This is the one module
 * that knows every door (the composition root, above them all); a door knows only the server
 * core and the layers below it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Settings } from '../config/settings.js';
import type { VirtualKeyStore } from '../keys/virtual-key-store.js';
import type { LogsQuota } from '../logs/logs-quota.js';
import type { PromptStore } from '../prompts/prompt-store.js';
import type { ResponseStore } from '../responses/response-store.js';
import type { PlanEnvironment } from '../routing/resolve-plan.js';
import { resolveTarget } from '../routing/resolve-target.js';
import type { Route } from '../server/app.js';
import { lazyRoutes } from '../server/lazy-routes.js';
import type { OperationDeps } from '../server/open-operation.js';
import { readCredentialHeaders } from '../server/read-credential-headers.js';
import type { RequestContextEnv } from '../server/request-context.js';
import type { TraceReader } from '../traces/trace-reader.js';
import { createChatRoute } from '../chat-completions/chat-completions-route.js';
import { createAdminRoutes } from '../virtual-keys/virtual-keys-routes.js';
import { TRACES_VIEW_ROUTES } from '../traces-view/traces-view-paths.js';

/** What the doors share, built once by `startGateway`. */
export interface FrontDoorDeps {
  settings: Settings;
  contextEnv: RequestContextEnv;
  operationDeps: OperationDeps;
  planEnv: PlanEnvironment;
  virtualKeys: VirtualKeyStore;
  prompts: PromptStore;
  responseStore: ResponseStore;
  logsQuota: LogsQuota;
  /** Reads traces back for `GET /v1/traces`; default: Jaeger at `SIDEGATE_TRACES_URL`, if set. */
  traceReader: TraceReader | undefined;
  /** `service.name` of the gateway's spans, the service `GET /v1/traces` lists. */
  serviceName: string;
}

export function frontDoorRoutes(doors: FrontDoorDeps): Route[] {
  const { settings, contextEnv, operationDeps, planEnv, virtualKeys, prompts, responseStore, logsQuota, traceReader, serviceName } = doors;
  const { telemetry, providers, log } = operationDeps;
  /** The provider and credential of a request's headers, for the doors that call a provider API directly (files, caches). */
  const resolveProviderKey = (headers: IncomingHttpHeaders) => {
    const target = resolveTarget(undefined, readCredentialHeaders(headers, planEnv.timeoutMs), planEnv);
    return { provider: target.provider, apiKey: target.apiKey, baseUrl: target.baseUrl };
  };
  return [
  { method: 'POST', path: '/v1/chat/completions', handler: createChatRoute(Object.assign({ settings, contextEnv }, operationDeps)) },
  // Every other front door is imported on its first request (lazy-routes.ts): a sidecar that
  // serves only chat completions never compiles or holds their schemas and translators.
  ...lazyRoutes([{ method: 'POST', path: '/v1/embeddings' }], async () => {
    const { createEmbeddingsRoute } = await import('../embeddings/embeddings-route.js');
    return [{ method: 'POST', path: '/v1/embeddings', handler: createEmbeddingsRoute(Object.assign({ settings, contextEnv }, operationDeps)) }];
  }),
  ...lazyRoutes(
    [
      { method: 'POST', path: '/v1/prompts/:id/completions' },
      { method: 'POST', path: '/v1/prompts/:id/render' },
      { method: 'POST', path: '/v1/prompts', auth: 'self' },
      { method: 'GET', path: '/v1/prompts', auth: 'self' },
      { method: 'GET', path: '/v1/prompts/:id', auth: 'self' },
      { method: 'PUT', path: '/v1/prompts/:id/labels', auth: 'self' },
    ],
    async () => {
      const { createPromptRoutes } = await import('../prompts/prompt-routes.js');
      return createPromptRoutes(Object.assign({}, operationDeps, { contextEnv, store: prompts, adminKey: settings.adminKey, maxBodyBytes: settings.maxBodyBytes }));
    },
  ),
  ...lazyRoutes(
    [
      { method: 'POST', path: '/v1/files' },
      { method: 'GET', path: '/v1/files/:id' },
    ],
    async () => {
      const { createFilesRoutes } = await import('../files/files-route.js');
      return createFilesRoutes({
        settings,
        resolveProviderKey,
      });
    },
  ),
  ...lazyRoutes(
    [
      { method: 'POST', path: '/v1/cached_contents' },
      { method: 'GET', path: '/v1/cached_contents' },
      { method: 'GET', path: '/v1/cached_contents/:id' },
      { method: 'DELETE', path: '/v1/cached_contents/:id' },
    ],
    async () => {
      const { createCachedContentsRoutes } = await import('../cached-contents/cached-contents-route.js');
      return createCachedContentsRoutes({
        maxBodyBytes: settings.maxBodyBytes,
        timeoutMs: settings.upstreamTimeoutMs,
        resolveProviderKey,
      });
    },
  ),
  ...lazyRoutes(
    [
      { method: 'GET', path: '/v1/models' },
      { method: 'GET', path: '/v1/models/:id' },
    ],
    async () => {
      const { createModelsRoutes } = await import('../models/models-route.js');
      return createModelsRoutes({ providers, planEnv });
    },
  ),
  ...lazyRoutes(
    [
      { method: 'POST', path: '/v1/responses' },
      { method: 'GET', path: '/v1/responses/:id' },
      { method: 'DELETE', path: '/v1/responses/:id' },
      { method: 'GET', path: '/v1/responses/:id/input_items' },
    ],
    async () => {
      const { createResponsesRoutes } = await import('../responses/responses-route.js');
      return createResponsesRoutes(Object.assign({}, operationDeps, { settings, contextEnv, store: responseStore, log }));
    },
  ),
  ...createAdminRoutes({ adminKey: settings.adminKey, virtualKeys }),
  ...lazyRoutes([{ method: 'POST', path: '/v1/logs' }], async () => {
    const { createLogsRoute } = await import('../logs/logs-route.js');
    return [{ method: 'POST', path: '/v1/logs', handler: createLogsRoute({ telemetry, quota: logsQuota, maxBodyBytes: settings.maxBodyBytes }) }];
  }),
  ...lazyRoutes(
    [
      { method: 'POST', path: '/v1/feedback' },
      { method: 'PUT', path: '/v1/feedback/:id' },
    ],
    async () => {
      const { createFeedbackRoutes } = await import('../feedback/feedback-route.js');
      return createFeedbackRoutes({ telemetry, maxBodyBytes: settings.maxBodyBytes });
    },
  ),
  ...lazyRoutes(
    [
      { method: 'GET', path: '/v1/traces/:traceId' },
      { method: 'GET', path: '/v1/traces' },
    ],
    async () => {
      const [{ createTracesRoutes }, { createJaegerReader }] = await Promise.all([import('../traces/traces-route.js'), import('../traces/jaeger-reader.js')]);
      return createTracesRoutes({
        reader: traceReader ?? (settings.tracesUrl !== undefined ? createJaegerReader({ url: settings.tracesUrl }) : undefined),
        serviceName,
      });
    },
  ),
  // The Traces view (issue 21): HTML pages over the same trace readers, loaded on first use.
  ...(settings.ui ? lazyRoutes(TRACES_VIEW_ROUTES, async () => {
    const [{ createTracesViewRoutes }, { createJaegerReader }] = await Promise.all([import('../traces-view/traces-view-routes.js'), import('../traces/jaeger-reader.js')]);
    const reader = traceReader ?? (settings.tracesUrl !== undefined ? createJaegerReader({ url: settings.tracesUrl }) : undefined);
    return createTracesViewRoutes({ reader, serviceName, apiKeys: settings.apiKeys, adminKey: settings.adminKey, columns: settings.uiColumns, jaegerUiUrl: settings.jaegerUiUrl });
  }) : []),
  ];
}
