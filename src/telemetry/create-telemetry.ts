/**
 * The real OpenTelemetry implementation of `Telemetry` (DESIGN "Tracing model", Decisions 1–5):
 * one SERVER request span per call, one CLIENT attempt span per upstream try, GenAI metrics,
 * OTLP export configured from the standard `OTEL_*` variables, Prometheus text for `/metrics`.
 *
 * Invariants: built once at startup (the only place that may throw, for a bad `SIDEGATE_*`
 * setting); on the request path nothing throws except `startRequest` with an
 * `InvalidRequestError`; export is batched and never awaited by a request; every handle ends once.
 */
import { performance } from 'node:perf_hooks';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  defaultTextMapSetter,
  trace,
  type Attributes,
  type Counter,
  type Histogram,
  type Link,
  type Span,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { CompositePropagator, hrTime, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { createRequire } from 'node:module';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import type { OTLPMetricExporter as OTLPMetricExporterProto } from '@opentelemetry/exporter-metrics-otlp-proto';
import type { OTLPTraceExporter as OTLPTraceExporterProto } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  ConsoleMetricExporter,
  InstrumentType,
  MeterProvider,
  PeriodicExportingMetricReader,
  type IMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  RandomIdGenerator,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type IdGenerator,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_REQUEST_RESEND_COUNT,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_TOKEN_TYPE,
  METRIC_GEN_AI_CLIENT_OPERATION_DURATION,
  METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
  METRIC_GEN_AI_SERVER_REQUEST_DURATION,
} from './semconv-incubating.js';
import { usesPortkeyPrefix } from '../config/header-aliases.js';
import { ClientAbortError, GatewayError, UpstreamError } from '../errors.js';
import type { CallOutcome } from '../providers/provider.js';
import { CountingExporter, DropReporter, QueueGuard } from './drop-reporter.js';
import { extractContext, type IncomingContext } from './extract-context.js';
import {
  getInputContentAttributes,
  getRequestAttributes,
  getResponseAttributes,
  getUsageAttributes,
} from './gen-ai-attributes.js';
import { noopTelemetry } from './noop-telemetry.js';
import { computeCostUsd, loadPricingTable, type PricingTable } from './pricing.js';
import { readOtelConfig, type ContentCapture, type OtelConfig, type OtlpSignalConfig } from './read-otel-config.js';
import { SpanIdRegistry } from './span-id-registry.js';
import type { AttemptEnd, AttemptSpan, AttemptStart, RequestEnd, RequestSpan, RequestStart, Telemetry } from './telemetry.js';

export interface CreateTelemetryOptions {
  /** Defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  serviceVersion?: string;
  /** Where warnings go (one line each). Defaults to stderr. */
  logger?: (line: string) => void;
  /** Replaces the OTLP/console span processors (tests: `SimpleSpanProcessor(InMemorySpanExporter)`). */
  spanProcessorOverride?: SpanProcessor;
  /** Shared with logs→spans so ids named by logs and requests never collide (Decision 1). */
  spanIdRegistry?: SpanIdRegistry;
}

/** `Telemetry` plus what tests and shutdown code need. `renderMetrics` is absent when OTEL_SDK_DISABLED=true. */
export interface SidegateTelemetry extends Telemetry {
  forceFlush(): Promise<void>;
  /** Spans dropped since startup (queue full or export failed). */
  droppedSpans(): number;
  readonly config: OtelConfig;
}

export const ATTR_GATEWAY_TRACE_ID = 'gateway.trace_id';
export const ATTR_GATEWAY_SPAN_ID = 'gateway.span_id';
export const ATTR_GATEWAY_ATTEMPTS = 'gateway.attempts';
export const ATTR_GATEWAY_ATTEMPT_NUMBER = 'gateway.attempt.number';
export const ATTR_GATEWAY_TARGET_INDEX = 'gateway.target.index';
export const ATTR_GATEWAY_COST_USD = 'gateway.cost.usd';
export const ATTR_GATEWAY_WARNINGS = 'gateway.warnings';
export const METADATA_ATTRIBUTE_PREFIX = 'gateway.metadata.';

const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

export function createTelemetry(options: CreateTelemetryOptions = {}): SidegateTelemetry {
  const env = options.env ?? process.env;
  const logger = options.logger ?? ((line: string) => process.stderr.write(`${line}\n`));
  const warn = (message: string) => logger(`sidegate telemetry: ${message}`);
  const config = readOtelConfig(env, warn);
  if (config.disabled) {
    return { ...noopTelemetry, config, forceFlush: async () => {}, droppedSpans: () => 0 };
  }
  return new OtelTelemetry(config, {
    env,
    warn,
    serviceVersion: options.serviceVersion,
    spanProcessorOverride: options.spanProcessorOverride,
    registry: options.spanIdRegistry ?? new SpanIdRegistry(),
  });
}

/** `SIDEGATE_PROPAGATE_UPSTREAM`: a sidegate setting, so a bad value fails startup naming it. */
export function readPropagateUpstream(env: NodeJS.ProcessEnv): boolean {
  const raw = env.SIDEGATE_PROPAGATE_UPSTREAM?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'true') return true;
  if (raw === 'false') return false;
  throw new Error(`SIDEGATE_PROPAGATE_UPSTREAM must be true or false, got ${JSON.stringify(raw)}`);
}

/**
 * Hands the tracer the ids chosen for the next span (Decision 1). `Tracer.startSpan` asks for
 * ids synchronously, so a one-shot slot set right before the call is per-call state.
 */
class ChosenIdGenerator implements IdGenerator {
  readonly #random = new RandomIdGenerator();
  nextTraceId: string | undefined;
  nextSpanId: string | undefined;

  generateTraceId(): string {
    const id = this.nextTraceId ?? this.#random.generateTraceId();
    this.nextTraceId = undefined;
    return id;
  }

  generateSpanId(): string {
    const id = this.nextSpanId ?? this.#random.generateSpanId();
    this.nextSpanId = undefined;
    return id;
  }
}

interface Instruments {
  operationDuration: Histogram;
  timeToFirstChunk: Histogram;
  tokenUsage: Histogram;
  requestDuration: Histogram;
  droppedSpans: Counter;
}

class OtelTelemetry implements SidegateTelemetry {
  readonly config: OtelConfig;
  readonly #provider: BasicTracerProvider;
  readonly #tracer;
  readonly #ids = new ChosenIdGenerator();
  readonly #registry: SpanIdRegistry;
  readonly #extractor: TextMapPropagator;
  readonly #injector = new W3CTraceContextPropagator();
  readonly #meterProvider: MeterProvider;
  /** The reader `/metrics` collects from: the OTLP push reader when it is cumulative, else a Prometheus reader. */
  readonly #metricsSource: IMetricReader;
  readonly #serializer = new PrometheusSerializer();
  readonly #instruments: Instruments;
  readonly #drops: DropReporter;
  readonly pricing: PricingTable;
  readonly propagateUpstream: boolean;
  readonly capture: ContentCapture;

  constructor(
    config: OtelConfig,
    deps: {
      env: NodeJS.ProcessEnv;
      warn: (message: string) => void;
      serviceVersion: string | undefined;
      spanProcessorOverride: SpanProcessor | undefined;
      registry: SpanIdRegistry;
    },
  ) {
    this.config = config;
    this.#registry = deps.registry;
    this.pricing = loadPricingTable(deps.env.SIDEGATE_PRICING_FILE);
    this.propagateUpstream = readPropagateUpstream(deps.env);
    this.capture = config.captureContent;

    const resource = defaultResource().merge(
      resourceFromAttributes({
        ...config.resourceAttributes,
        [ATTR_SERVICE_NAME]: config.serviceName,
        ...(deps.serviceVersion !== undefined ? { [ATTR_SERVICE_VERSION]: deps.serviceVersion } : {}),
      }),
    );

    const readers: IMetricReader[] = [];
    let shared: IMetricReader | undefined;
    for (const kind of config.metricsExporters) {
      const exporter: PushMetricExporter = kind === 'console' ? new ConsoleMetricExporter() : createMetricExporter(config.metrics);
      const reader = new PeriodicExportingMetricReader({
        exporter,
        exportIntervalMillis: config.metricExportIntervalMillis,
        exportTimeoutMillis: Math.min(config.metricExportTimeoutMillis, config.metricExportIntervalMillis),
      });
      readers.push(reader);
      if (shared === undefined && kind !== 'console' && isCumulative(exporter)) shared = reader;
    }
    // Every reader costs an attribute hash per recorded value on the request path. A cumulative OTLP
    // reader (the default) already holds what Prometheus needs, so `/metrics` collects from it; a
    // separate Prometheus reader is added only for delta temporality or when OTLP push is off.
    if (shared === undefined) {
      shared = new PrometheusExporter({ preventServerStart: true });
      readers.push(shared);
    }
    this.#metricsSource = shared;
    this.#meterProvider = new MeterProvider({ resource, readers });
    const meter = this.#meterProvider.getMeter('sidegate', deps.serviceVersion);
    this.#instruments = {
      operationDuration: meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_DURATION, {
        unit: 's',
        description: 'Duration of each upstream GenAI call (one per attempt)',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      timeToFirstChunk: meter.createHistogram(METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK, {
        unit: 's',
        description: 'Time to the first streamed chunk of an upstream call',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      tokenUsage: meter.createHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
        unit: '{token}',
        description: 'Tokens used by each billed upstream call',
        advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
      }),
      requestDuration: meter.createHistogram(METRIC_GEN_AI_SERVER_REQUEST_DURATION, {
        unit: 's',
        description: 'Duration of each chat-completions request served by the gateway',
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      }),
      droppedSpans: meter.createCounter('sidegate.telemetry.spans.dropped', {
        unit: '{span}',
        description: 'Spans never delivered to the collector (queue full or export failed)',
      }),
    };
    this.#drops = new DropReporter(this.#instruments.droppedSpans, deps.warn);

    const spanProcessors: SpanProcessor[] = [];
    if (deps.spanProcessorOverride !== undefined) spanProcessors.push(deps.spanProcessorOverride);
    else {
      for (const kind of config.tracesExporters) {
        if (kind === 'console') {
          spanProcessors.push(new SimpleSpanProcessor(new ConsoleSpanExporter()));
          continue;
        }
        const exporter = new CountingExporter(createTraceExporter(config.traces), this.#drops);
        const batch = new BatchSpanProcessor(exporter, {
          ...config.bsp,
          maxExportBatchSize: Math.min(config.bsp.maxExportBatchSize, config.bsp.maxQueueSize),
        });
        spanProcessors.push(new QueueGuard(batch, exporter, config.bsp.maxQueueSize, this.#drops));
      }
    }
    this.#provider = new BasicTracerProvider({
      resource,
      sampler: createSampler(config.sampler),
      spanLimits: config.spanLimits,
      idGenerator: this.#ids,
      spanProcessors,
    });
    this.#tracer = this.#provider.getTracer('sidegate', deps.serviceVersion);

    const propagators: TextMapPropagator[] = [];
    if (config.propagators.includes('tracecontext')) propagators.push(new W3CTraceContextPropagator());
    if (config.propagators.includes('baggage')) propagators.push(new W3CBaggagePropagator());
    this.#extractor = new CompositePropagator({ propagators });
  }

  startRequest(start: RequestStart): RequestSpan {
    const incoming = extractContext(start.headers, this.#extractor);
    try {
      return this.#startRequestSpan(start, incoming);
    } catch {
      // Telemetry never hurts the request: an SDK surprise degrades to no span.
      return noopTelemetry.startRequest(start);
    }
  }

  // Span times come from one monotonic clock (`hrTime()`: performance.timeOrigin + now, ns), passed
  // explicitly at start and end. Left to itself the SDK anchors each span's start on Date.now()
  // (whole milliseconds), so back-to-back attempts could appear to overlap by up to 1 ms in Jaeger.
  #startRequestSpan(start: RequestStart, incoming: IncomingContext): RequestSpan {
    const model = start.request.model;
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [ATTR_GEN_AI_REQUEST_MODEL]: model,
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      [ATTR_HTTP_ROUTE]: '/v1/chat/completions',
    };
    if (incoming.clientTraceId !== undefined) attributes[ATTR_GATEWAY_TRACE_ID] = incoming.clientTraceId;
    if (incoming.clientSpanId !== undefined) attributes[ATTR_GATEWAY_SPAN_ID] = incoming.clientSpanId;

    const links: Link[] = [];
    const parentContext = incoming.parent !== undefined ? trace.setSpanContext(ROOT_CONTEXT, incoming.parent) : ROOT_CONTEXT;
    const traceId = incoming.traceId ?? this.#ids.generateTraceId();
    if (incoming.requestedSpanId !== undefined) {
      if (this.#registry.claim(traceId, incoming.requestedSpanId)) this.#ids.nextSpanId = incoming.requestedSpanId;
      else links.push({ context: { traceId, spanId: incoming.requestedSpanId, traceFlags: TraceFlags.SAMPLED, isRemote: true } });
    }
    if (incoming.parent === undefined) this.#ids.nextTraceId = traceId;
    let span: Span;
    try {
      span = this.#tracer.startSpan(
        incoming.spanName ?? `chat ${model}`,
        { kind: SpanKind.SERVER, attributes, links, startTime: hrTime() },
        parentContext,
      );
    } finally {
      this.#ids.nextTraceId = undefined;
      this.#ids.nextSpanId = undefined;
    }
    let requestAttributes: Attributes = {};
    if (span.isRecording()) {
      requestAttributes = getRequestAttributes(start.request);
      span.setAttributes(requestAttributes);
      for (const [key, value] of Object.entries(incoming.metadata)) span.setAttribute(`${METADATA_ATTRIBUTE_PREFIX}${key}`, value);
      if (this.capture !== 'none') {
        const content = getInputContentAttributes(start.request.messages);
        if (this.capture === 'span' || this.capture === 'span_and_event') span.setAttributes(content);
        if (this.capture === 'event' || this.capture === 'span_and_event') span.addEvent('gen_ai.client.inference.operation.details', content);
      }
    }
    return new OtelRequestSpan(this, span, incoming, model, usesPortkeyPrefix(start.headers), requestAttributes);
  }

  /** Starts an attempt span under `parent`; internal to this module. */
  startAttemptSpan(parent: Span, start: AttemptStart, request: OtelRequestSpan): OtelAttemptSpan {
    const { address, port } = serverOf(start.baseUrl);
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: start.operationName,
      [ATTR_GEN_AI_PROVIDER_NAME]: start.providerName,
      [ATTR_GEN_AI_REQUEST_MODEL]: start.model,
      [ATTR_GATEWAY_ATTEMPT_NUMBER]: start.attemptNumber,
      [ATTR_GATEWAY_TARGET_INDEX]: start.targetIndex,
    };
    if (address !== undefined) attributes[ATTR_SERVER_ADDRESS] = address;
    if (port !== undefined) attributes[ATTR_SERVER_PORT] = port;
    if (start.resendCount > 0) attributes[ATTR_HTTP_REQUEST_RESEND_COUNT] = start.resendCount;
    const span = this.#tracer.startSpan(
      `${start.operationName} ${start.model}`,
      { kind: SpanKind.CLIENT, attributes, startTime: hrTime() },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
    if (span.isRecording()) span.setAttributes(request.requestAttributes);
    return new OtelAttemptSpan(this, span, start, address, port);
  }

  w3cHeaders(span: Span, only?: 'traceparent'): Record<string, string> {
    const carrier: Record<string, string> = {};
    this.#injector.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
    if (only === 'traceparent') return carrier.traceparent === undefined ? {} : { traceparent: carrier.traceparent };
    return carrier;
  }

  get instruments(): Instruments {
    return this.#instruments;
  }

  costOf(model: string, outcome: CallOutcome | undefined): number | undefined {
    if (outcome?.usage === undefined) return undefined;
    return computeCostUsd(this.pricing, model, outcome.usage);
  }

  async renderMetrics(): Promise<string> {
    const { resourceMetrics } = await this.#metricsSource.collect();
    return this.#serializer.serialize(resourceMetrics);
  }

  async forceFlush(): Promise<void> {
    await Promise.allSettled([this.#provider.forceFlush(), this.#meterProvider.forceFlush()]);
  }

  droppedSpans(): number {
    return this.#drops.total;
  }

  async shutdown(deadlineMs = 5000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
      timer.unref();
    });
    await Promise.race([Promise.allSettled([this.#provider.shutdown(), this.#meterProvider.shutdown()]), deadline]);
    clearTimeout(timer);
  }
}

class OtelRequestSpan implements RequestSpan {
  readonly metadata: Readonly<Record<string, string>>;
  readonly #startedAt = performance.now();
  readonly #open = new Set<OtelAttemptSpan>();
  #ended = false;

  constructor(
    private readonly owner: OtelTelemetry,
    private readonly span: Span,
    private readonly incoming: IncomingContext,
    private readonly model: string,
    private readonly portkey: boolean,
    /** `gen_ai.request.*` of the logical call, repeated on each attempt (the semconv inference span). */
    readonly requestAttributes: Attributes,
  ) {
    this.metadata = Object.freeze(incoming.metadata); // built fresh for this request by extractContext
  }

  responseHeaders(): Record<string, string> {
    try {
      const traceId = this.incoming.clientTraceId ?? this.span.spanContext().traceId;
      const out: Record<string, string> = { 'x-gateway-trace-id': traceId, ...this.owner.w3cHeaders(this.span, 'traceparent') };
      if (this.portkey) out['x-portkey-trace-id'] = traceId;
      return out;
    } catch {
      return {};
    }
  }

  startAttempt(start: AttemptStart): AttemptSpan {
    try {
      const attempt = this.owner.startAttemptSpan(this.span, start, this);
      this.#open.add(attempt);
      attempt.onEnd = () => this.#open.delete(attempt);
      return attempt;
    } catch {
      return noopTelemetry.startRequest({} as RequestStart).startAttempt(start);
    }
  }

  end(result: RequestEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      // No span is left open: an attempt the router never ended shares the request's fate.
      for (const attempt of [...this.#open]) attempt.end({ error: result.error ?? new ClientAbortError() });
      const errorType = errorTypeOf(result.error, result.status);
      const span = this.span;
      if (span.isRecording()) {
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
        span.setAttribute(ATTR_GATEWAY_ATTEMPTS, result.attempts);
        if (result.finalTarget !== undefined) span.setAttribute(ATTR_GATEWAY_TARGET_INDEX, result.finalTarget);
        if (result.outcome !== undefined) span.setAttributes(getResponseAttributes(result.outcome));
        if (errorType !== undefined) span.setAttribute(ATTR_ERROR_TYPE, errorType);
      }
      // Decision 4: a 4xx is the client's doing (status unset); a 5xx or an abort is an error.
      if (result.error instanceof ClientAbortError || result.status >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: statusMessageOf(result.error, result.status) });
      }
      span.end(hrTime());
      const attrs: Attributes = {
        [ATTR_GEN_AI_OPERATION_NAME]: 'chat',
        [ATTR_GEN_AI_REQUEST_MODEL]: this.model,
        [ATTR_HTTP_RESPONSE_STATUS_CODE]: result.status,
      };
      if (result.outcome?.responseModel !== undefined) attrs[ATTR_GEN_AI_RESPONSE_MODEL] = result.outcome.responseModel;
      if (errorType !== undefined) attrs[ATTR_ERROR_TYPE] = errorType;
      // Request and attempt counts are the `_count` of these histograms: no separate counters, since
      // each recorded instrument costs an attribute hash per metric reader on the hot path.
      this.owner.instruments.requestDuration.record((performance.now() - this.#startedAt) / 1000, attrs);
    } catch {
      // never throw from end
    }
  }
}

class OtelAttemptSpan implements AttemptSpan {
  onEnd: () => void = () => {};
  readonly #startedAt = performance.now();
  #firstChunkAt: number | undefined;
  #ended = false;

  constructor(
    private readonly owner: OtelTelemetry,
    private readonly span: Span,
    private readonly start: AttemptStart,
    private readonly address: string | undefined,
    private readonly port: number | undefined,
  ) {}

  traceHeaders(): Record<string, string> {
    if (!this.owner.propagateUpstream) return {};
    try {
      // Decision 5: traceparent and tracestate only; baggage may carry user data.
      return this.owner.w3cHeaders(this.span);
    } catch {
      return {};
    }
  }

  firstChunk(): void {
    if (this.#firstChunkAt !== undefined || this.#ended) return;
    this.#firstChunkAt = performance.now();
    const seconds = (this.#firstChunkAt - this.#startedAt) / 1000;
    try {
      this.span.setAttribute(ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK, seconds);
      this.owner.instruments.timeToFirstChunk.record(seconds, this.metricAttributes(undefined, undefined));
    } catch {
      // never throw
    }
  }

  end(result: AttemptEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      this.onEnd();
      const span = this.span;
      const failed = result.error !== undefined;
      const errorType = failed ? errorTypeOf(result.error, result.status) : undefined;
      if (span.isRecording()) {
        if (result.status !== undefined) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
        if (result.outcome !== undefined) {
          span.setAttributes(getResponseAttributes(result.outcome));
          if (result.outcome.usage !== undefined) span.setAttributes(getUsageAttributes(result.outcome.usage));
          const cost = this.owner.costOf(this.start.model, result.outcome);
          if (cost !== undefined) span.setAttribute(ATTR_GATEWAY_COST_USD, cost);
          if (result.outcome.warnings.length > 0) span.setAttribute(ATTR_GATEWAY_WARNINGS, result.outcome.warnings);
        }
        if (errorType !== undefined) span.setAttribute(ATTR_ERROR_TYPE, errorType);
        if (this.owner.capture !== 'none' && result.output !== undefined) {
          const content = {
            [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify(
              result.output.map((choice) => ({
                role: 'assistant',
                parts: choice.content === null ? [] : [{ type: 'text', content: choice.content }],
                ...(choice.finishReason !== undefined ? { finish_reason: choice.finishReason } : {}),
              })),
            ),
          };
          if (this.owner.capture === 'span' || this.owner.capture === 'span_and_event') span.setAttributes(content);
          if (this.owner.capture === 'event' || this.owner.capture === 'span_and_event') span.addEvent('gen_ai.client.inference.operation.details', content);
        }
      }
      if (failed) span.setStatus({ code: SpanStatusCode.ERROR, message: statusMessageOf(result.error, result.status) });
      span.end(hrTime());
      const attrs = this.metricAttributes(result.outcome?.responseModel, errorType);
      this.owner.instruments.operationDuration.record((performance.now() - this.#startedAt) / 1000, attrs);
      const usage = result.outcome?.usage;
      if (usage !== undefined) {
        this.owner.instruments.tokenUsage.record(usage.inputTokens, { ...attrs, [ATTR_GEN_AI_TOKEN_TYPE]: 'input' });
        this.owner.instruments.tokenUsage.record(usage.outputTokens, { ...attrs, [ATTR_GEN_AI_TOKEN_TYPE]: 'output' });
      }
    } catch {
      // never throw from end
    }
  }

  private metricAttributes(responseModel: string | undefined, errorType: string | undefined): Attributes {
    const attrs: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: this.start.operationName,
      [ATTR_GEN_AI_PROVIDER_NAME]: this.start.providerName,
      [ATTR_GEN_AI_REQUEST_MODEL]: this.start.model,
    };
    if (responseModel !== undefined) attrs[ATTR_GEN_AI_RESPONSE_MODEL] = responseModel;
    if (this.address !== undefined) attrs[ATTR_SERVER_ADDRESS] = this.address;
    if (this.port !== undefined) attrs[ATTR_SERVER_PORT] = this.port;
    if (errorType !== undefined) attrs[ATTR_ERROR_TYPE] = errorType;
    return attrs;
  }
}

/** Low-cardinality `error.type` (semconv "Recording errors"): never a message, never user data. */
export function errorTypeOf(error: unknown, status: number | undefined): string | undefined {
  if (error instanceof ClientAbortError) return 'cancelled';
  if (error instanceof UpstreamError) return error.reason;
  if (error instanceof GatewayError) return error.code ?? error.type;
  if (error !== undefined && error !== null) {
    const name = (error as { name?: unknown }).name;
    return typeof name === 'string' && name !== 'Error' && /^[A-Za-z_]\w{0,63}$/.test(name) ? name : '_OTHER';
  }
  if (status !== undefined && status >= 400) return String(status);
  return undefined;
}

/** Span status message: only our own error messages (which never hold keys), else the status. */
function statusMessageOf(error: unknown, status: number | undefined): string | undefined {
  if (error instanceof GatewayError || error instanceof ClientAbortError) return error.message;
  return status === undefined ? undefined : `HTTP ${status}`;
}

/** Base URLs are few (one per configured upstream): parse each once, not once per attempt. */
const servers = new Map<string, { address?: string; port?: number }>();

function serverOf(baseUrl: string): { address?: string; port?: number } {
  let server = servers.get(baseUrl);
  if (server === undefined) {
    server = parseServer(baseUrl);
    if (servers.size >= 256) servers.clear();
    servers.set(baseUrl, server);
  }
  return server;
}

function parseServer(baseUrl: string): { address?: string; port?: number } {
  try {
    const url = new URL(baseUrl);
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : undefined;
    return { address: url.hostname.replace(/^\[|\]$/g, ''), ...(port !== undefined ? { port } : {}) };
  } catch {
    return {};
  }
}

function createSampler(sampler: OtelConfig['sampler']): Sampler {
  switch (sampler.name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(sampler.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(sampler.ratio) });
    default: {
      const never: never = sampler.name;
      return never;
    }
  }
}

function exporterOptions(signal: OtlpSignalConfig) {
  return {
    url: signal.url,
    headers: signal.headers,
    timeoutMillis: signal.timeoutMillis,
    // The exporters' CompressionAlgorithm enum has exactly these string values.
    compression: signal.compression as NonNullable<ConstructorParameters<typeof OTLPTraceExporterProto>[0]>['compression'],
  };
}

/**
 * Exporter packages are loaded only for the protocol in use: each one (gRPC above all) costs
 * megabytes of resident memory, and a sidecar's idle footprint is part of its contract.
 * They ship CommonJS, so a synchronous require keeps `createTelemetry` synchronous.
 */
const requireExporter = createRequire(import.meta.url);

function createTraceExporter(signal: OtlpSignalConfig): SpanExporter {
  const options = exporterOptions(signal);
  switch (signal.protocol) {
    case 'grpc': {
      // gRPC metadata comes from OTEL_EXPORTER_OTLP_(TRACES_)HEADERS, read by the exporter itself.
      const { headers: _headers, ...grpc } = options;
      const { OTLPTraceExporter } = requireExporter('@opentelemetry/exporter-trace-otlp-grpc') as typeof import('@opentelemetry/exporter-trace-otlp-grpc');
      return new OTLPTraceExporter(grpc);
    }
    case 'http/json': {
      const { OTLPTraceExporter } = requireExporter('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
      return new OTLPTraceExporter(options);
    }
    case 'http/protobuf': {
      const { OTLPTraceExporter } = requireExporter('@opentelemetry/exporter-trace-otlp-proto') as { OTLPTraceExporter: typeof OTLPTraceExporterProto };
      return new OTLPTraceExporter(options);
    }
  }
}

function isCumulative(exporter: PushMetricExporter): boolean {
  const select = exporter.selectAggregationTemporality?.bind(exporter);
  if (select === undefined) return true; // the SDK's default selector is cumulative
  return [InstrumentType.COUNTER, InstrumentType.HISTOGRAM, InstrumentType.UP_DOWN_COUNTER].every(
    (type) => select(type) === AggregationTemporality.CUMULATIVE,
  );
}

function createMetricExporter(signal: OtlpSignalConfig): PushMetricExporter {
  const options = exporterOptions(signal);
  switch (signal.protocol) {
    case 'grpc': {
      const { headers: _headers, ...grpc } = options;
      const { OTLPMetricExporter } = requireExporter('@opentelemetry/exporter-metrics-otlp-grpc') as typeof import('@opentelemetry/exporter-metrics-otlp-grpc');
      return new OTLPMetricExporter(grpc);
    }
    case 'http/json': {
      const { OTLPMetricExporter } = requireExporter('@opentelemetry/exporter-metrics-otlp-http') as typeof import('@opentelemetry/exporter-metrics-otlp-http');
      return new OTLPMetricExporter(options);
    }
    case 'http/protobuf': {
      const { OTLPMetricExporter } = requireExporter('@opentelemetry/exporter-metrics-otlp-proto') as { OTLPMetricExporter: typeof OTLPMetricExporterProto };
      return new OTLPMetricExporter(options);
    }
  }
}
