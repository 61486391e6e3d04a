/**
 * The one small interface through which the server and routing reach telemetry (STYLE §9).
 * No file in `providers/` or `routing/` imports `@opentelemetry/*`. Telemetry receives the
 * request context the server parsed (DESIGN Decision 18) and decides nothing: it never throws,
 * never validates a header, and the ids of the request span are the context's. Every handle is
 * ended exactly once; implementations never throw from any method (telemetry never hurts the
 * request).
 */
import type { SpanContext } from '@opentelemetry/api';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import type { CallOutcome } from '../providers/provider.js';
import type { OtelConfig } from './read-otel-config.js';
import type { SpanIdRegistry } from './span-id-registry.js';

/** Extra span attribute values a front door may add (e.g. `gateway.prompt.id`). */
export type ExtraAttributes = Readonly<Record<string, string | number | boolean | readonly string[]>>;

export interface RequestStart {
  /** The gateway's request context: the span's ids, parent, name and metadata come from it. */
  context: { trace: RequestTrace; metadata: Readonly<Record<string, string>> };
  /** `gen_ai.operation.name` of the logical call: `chat`, `embeddings`, … (also the default span name prefix). */
  operation: string;
  /** The model the client asked for (`gen_ai.request.model`). */
  model: string;
  /** `http.route` of the front door, e.g. `/v1/chat/completions`. */
  route: string;
  /** The chat request, when the operation is one: `gen_ai.request.*` and captured input come from it. */
  chat?: ChatCompletionRequest;
  /** Added to the request span as they are. */
  attributes?: ExtraAttributes;
  /** User content (e.g. a prompt's variables): added only when message-content capture is on. */
  contentAttributes?: ExtraAttributes;
}

export interface AttemptStart {
  /** `gen_ai.provider.name`, e.g. `gcp.gemini`. */
  providerName: string;
  /** `gen_ai.operation.name` of the attempt, e.g. `generate_content`. */
  operationName: string;
  /** Model of this target (after overrides). */
  model: string;
  /** Upstream base URL (for `server.address` / `server.port`). */
  baseUrl: string;
  /** 1-based, counting every try of this request. */
  attemptNumber: number;
  /** Path of the target in the routing config, e.g. `config.targets[1]`; `default` without config. */
  targetIndex: string;
  /** Retries of the same target before this one (0 on the first try). */
  resendCount: number;
  /** Vertex AI targets: `gcp.project_id` and `cloud.region` of the attempt. */
  cloud?: { projectId?: string | undefined; region?: string | undefined };
  /** The one request let through to a target whose breaker cooled down (`gateway.breaker.probe`). */
  probe?: boolean;
}

export interface AttemptEnd {
  /** HTTP status upstream answered with (or the gateway's mapped status for a network failure). */
  status?: number;
  outcome?: CallOutcome;
  /** Set when the attempt failed; `ClientAbortError` marks a client abort. */
  error?: unknown;
  /**
   * Assistant output of each choice, recorded (as `gen_ai.output.messages`) only when
   * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` turns content capture on. Optional.
   */
  output?: ReadonlyArray<{ content: string | null; finishReason?: string }>;
  /** A retry this attempt called for was refused by the target's retry budget (`gateway.retry_budget_exhausted`). */
  retryBudgetExhausted?: boolean;
}

export interface AttemptSpan {
  /** W3C headers (`traceparent`, `tracestate`) to send upstream; empty when propagation is off. */
  traceHeaders(): Record<string, string>;
  /** Call when the first streamed chunk arrives (for `gen_ai.response.time_to_first_chunk`). */
  firstChunk(): void;
  /**
   * Call when the request was written upstream, with the time it waited for a connection
   * (`gateway.upstream.queue_duration` and the `sidegate.upstream.queue.duration` histogram).
   */
  requestWritten?(queuedMs: number): void;
  end(result: AttemptEnd): void;
}

export interface RequestEnd {
  /** HTTP status the client got. */
  status: number;
  outcome?: CallOutcome;
  error?: unknown;
  attempts: number;
  /** Target path of the attempt that produced the answer (or the last one tried). */
  finalTarget?: string;
  /** Targets skipped because they were cooling down (`gateway.targets_skipped`). */
  skippedTargets?: number;
}

/** A target routing skipped without an attempt, its breaker open (a `target_skipped` event, never an attempt span). */
export interface TargetSkip {
  /** Path of the target in the routing config, e.g. `config.targets[0]`; `default` without config. */
  targetIndex: string;
  providerName: string;
  model: string;
  baseUrl: string;
  /** A salted hash of the target's credential (never the credential). */
  credentialId: string;
  reason: 'cooling_down' | 'probe_in_flight';
  /** Until the target's cooldown ends. */
  retryInMs: number;
}

/** One target's breaker state, for the `sidegate.breaker.state` gauge. */
export interface TargetHealthReading {
  providerName: string;
  model: string;
  baseUrl: string;
  credentialId: string;
  state: 'closed' | 'half_open' | 'open';
}

export interface RequestSpan {
  /**
   * The sampling decision for the response `traceparent`: true/false when a span was started,
   * undefined when telemetry is off (the context's incoming flag is used then).
   */
  sampled(): boolean | undefined;
  startAttempt(start: AttemptStart): AttemptSpan;
  /** Records a skipped target on the request span (event `target_skipped`) and in `sidegate.breaker.skips`. */
  targetSkipped?(skip: TargetSkip): void;
  end(result: RequestEnd): void;
}

export interface Telemetry {
  startRequest(start: RequestStart): RequestSpan;
  /** The span-id registry its log spans claim ids in; the gateway's request context shares it (Decision 1). */
  readonly spanIds?: SpanIdRegistry;
  /** Exports each validated log of `POST /v1/logs` as one span (DESIGN Decision 16). Never throws. */
  recordLogs?(logs: readonly IdentifiedLog[]): void;
  /** Exports one feedback version as a `feedback` span in its trace; `atMs` is when it arrived. Never throws. */
  recordFeedback?(feedback: FeedbackVersion, atMs: number): void;
  /** Reports every target's breaker state through `read` at each metric collection. Called once at startup. */
  observeTargetHealth?(read: () => Iterable<TargetHealthReading>): void;
  /** Prometheus text for `/metrics`; undefined when metrics are off. */
  renderMetrics?(): Promise<string>;
  /** Flushes pending spans and metrics, bounded by `deadlineMs`. */
  shutdown(deadlineMs?: number): Promise<void>;
}

/** `Telemetry` plus what tests and shutdown code need. `renderMetrics` is absent when OTEL_SDK_DISABLED=true. */
export interface SidegateTelemetry extends Telemetry {
  forceFlush(): Promise<void>;
  /** Spans dropped since startup (queue full or export failed). */
  droppedSpans(): number;
  readonly config: OtelConfig;
}

/** The ids and names of the gateway's request span, chosen here so they do not depend on telemetry. */
export interface RequestTrace {
  /** 32-hex trace id of the request span (the client's, mapped, or new). */
  traceId: string;
  /** 16-hex id of the request span (the one the client asked for when free, else new). */
  spanId: string;
  /** Sampled flag of the incoming context (`SAMPLED` for a new trace). */
  traceFlags: number;
  /** The span the request span is filed under (remote), if any. */
  parent?: SpanContext;
  /** The client's own `x-gateway-trace-id` (echoed in the response, kept as `gateway.trace_id`). */
  clientTraceId?: string;
  /** The client's own `x-gateway-span-id` (kept as `gateway.span_id`). */
  clientSpanId?: string;
  /** A requested span id already used in this trace: the request span links to its first holder. */
  reusedSpanId?: string;
  /** `x-gateway-span-name`. */
  spanName?: string;
}

export interface LoggedRequest {
  url?: string;
  method?: string;
  headers?: Record<string, string | string[]>;
  body?: unknown;
}

export interface LoggedResponse {
  status?: number;
  headers?: Record<string, string | string[]>;
  body?: unknown;
}

/** A validated log with its ids mapped (Decision 2) and its times resolved. */
export interface LogEntry {
  /** 32-hex trace id, and the client's own string (kept as `gateway.trace_id`); absent = new trace. */
  trace?: { id: string; client: string };
  /** 16-hex span id the client asked for, and its own string (kept as `gateway.span_id`). */
  span?: { id: string; client: string };
  /** 16-hex id of the parent span (in `trace`). */
  parentSpanId?: string;
  spanName?: string;
  request: LoggedRequest;
  response?: LoggedResponse;
  /** Metadata other than the four id/name keys. */
  metadata: Record<string, string>;
  /** Start and end, ms since the epoch (fractions allowed). */
  startMs: number;
  endMs: number;
}

/** A validated log and the id the gateway gave it. */
export interface IdentifiedLog extends LogEntry {
  id: string;
}

/** One version of one feedback, ready to record. */
export interface FeedbackVersion {
  id: string;
  /** 32-hex trace id (Decision 2). */
  traceId: string;
  /** The client's own trace id string, when it gave one (kept as `gateway.trace_id`). */
  clientTraceId?: string;
  value: number;
  weight: number;
  metadata: Record<string, string>;
}
