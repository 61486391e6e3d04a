import type { Tracer } from '@opentelemetry/api';
import type { Sampler } from '@opentelemetry/sdk-trace-base';
import type { ChosenIdGenerator } from './chosen-id-generator.js';
import type { Instruments } from './create-metrics.js';
import type { OffPath } from './off-path.js';
import type { PricingTable } from './pricing.js';
import type { ContentCapture } from './read-otel-config.js';
import type { SpanIdRegistry } from './span-id-registry.js';

/** What the request and attempt spans share, built once by `OtelTelemetry`; read-only on the request path. */
export interface SpanKit {
  tracer: Tracer;
  /** The tracer's own sampler, asked up front for the sampled flag of spans made later (late-span.ts). */
  sampler: Sampler;
  ids: ChosenIdGenerator;
  /** Span ids logs name (Decision 1), the same registry the request context claims requests' ids in. */
  registry: SpanIdRegistry;
  instruments: Instruments;
  pricing: PricingTable;
  /** `SIDEGATE_PROPAGATE_UPSTREAM`: send the attempt span's `traceparent` upstream. */
  propagateUpstream: boolean;
  /** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`. */
  capture: ContentCapture;
  /** Where spans hand their attributes, metric records and ending to the SDK, off the request path (`off-path.ts`). */
  offPath: OffPath;
}
