/**
 * The one small interface through which the server and routing reach telemetry (STYLE §9).
 * Nothing outside `telemetry/` imports `@opentelemetry/*`. Every handle is ended exactly once;
 * implementations never throw from `end`, `firstChunk` or header getters (telemetry never hurts
 * the request). Only `startRequest` may throw, with an `InvalidRequestError` for bad tracing
 * headers (e.g. `x-gateway-metadata` that is not a JSON object of strings).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ChatCompletionRequest } from '../openai/chat-request.js';
import type { CallOutcome } from '../providers/provider.js';
import type { OtelConfig } from './read-otel-config.js';
import type { FeedbackVersion } from '../feedback/parse-feedback.js';
import type { IdentifiedLog } from './log-span.js';

export interface RequestStart {
  headers: IncomingHttpHeaders;
  request: ChatCompletionRequest;
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
}

export interface RequestSpan {
  /** Metadata after merging `baggage` and `x-gateway-metadata` (for conditional routing). */
  readonly metadata: Readonly<Record<string, string>>;
  /** `x-gateway-trace-id` and `traceparent` for the response. */
  responseHeaders(): Record<string, string>;
  startAttempt(start: AttemptStart): AttemptSpan;
  end(result: RequestEnd): void;
}

export interface Telemetry {
  startRequest(start: RequestStart): RequestSpan;
  /** Exports each validated log of `POST /v1/logs` as one span (DESIGN Decision 16). Never throws. */
  recordLogs?(logs: readonly IdentifiedLog[]): void;
  /** Exports one feedback version as a `feedback` span in its trace; `atMs` is when it arrived. Never throws. */
  recordFeedback?(feedback: FeedbackVersion, atMs: number): void;
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
