/**
 * Builds the `Telemetry` of the process from the standard `OTEL_*` variables (DESIGN "Tracing
 * model"): the real OpenTelemetry one (`otel-telemetry.ts`), or the no-op one when
 * `OTEL_SDK_DISABLED=true`. Where things live: the span model in `otel-request-span.ts` and
 * `otel-attempt-span.ts`; SDK setup in `create-tracer-provider.ts`, `create-metrics.ts`,
 * `create-otlp-exporters.ts` and `create-sampler.ts`; `error.type` in `error-type-of.ts`.
 *
 * Invariants: built once at startup (the only place that may throw, for a bad `SIDEGATE_*`
 * setting); nothing throws on the request path; export is batched and never awaited by a request; every handle ends once.
 */
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { noopTelemetry } from './noop-telemetry.js';
import { OtelTelemetry } from './otel-telemetry.js';
import { readOtelConfig } from './read-otel-config.js';
import { SpanIdRegistry } from './span-id-registry.js';
import type { SidegateTelemetry } from './telemetry.js';

export interface CreateTelemetryOptions {
  /** Defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  serviceVersion?: string;
  /** Where warnings go (one line each). Defaults to stderr. */
  logger?: (line: string) => void;
  /** Replaces the OTLP/console span processors (tests: `SimpleSpanProcessor(InMemorySpanExporter)`). */
  spanProcessorOverride?: SpanProcessor;
  /**
   * The span export worker's entry (tests run from sources and pass a built one); defaults to
   * `dist/telemetry/span-export-worker.js` next to this module. Used only with `SIDEGATE_OTLP_WORKER=true`.
   */
  exportWorkerUrl?: URL;
  /**
   * Span ids chosen by clients (Decision 1): claimed by the request context for requests and by
   * log spans. Default a new one, exposed as `spanIds` so the gateway shares it.
   */
  spanIdRegistry?: SpanIdRegistry;
}

export type { SidegateTelemetry } from './telemetry.js';

export function createTelemetry(options: CreateTelemetryOptions = {}): SidegateTelemetry {
  const env = options.env ?? process.env;
  const logger = options.logger ?? ((line: string) => process.stderr.write(`${line}\n`));
  const warn = (message: string) => logger(`sidegate telemetry: ${message}`);
  const config = readOtelConfig(env, warn);
  const spanIds = options.spanIdRegistry ?? new SpanIdRegistry();
  if (config.disabled) {
    return Object.assign({}, noopTelemetry, { config, spanIds, forceFlush: async () => {}, droppedSpans: () => 0 });
  }
  return new OtelTelemetry(config, {
    env,
    warn,
    serviceVersion: options.serviceVersion,
    spanProcessorOverride: options.spanProcessorOverride,
    exportWorkerUrl: options.exportWorkerUrl,
    registry: spanIds,
  });
}
