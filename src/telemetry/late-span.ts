/**
 * A span whose ids and sampling decision are known at once and whose SDK object is made off the
 * request path (off-path.ts), right before the attributes and ending work queued after it.
 *
 * Why: `tracer.startSpan` builds the SDK's span (its sampler call, id slots, limits, the span
 * object and the processors' `onStart`) and nothing of it is needed before the answer: the ids
 * are the request context's (or chosen as the attempt starts), the times are passed explicitly,
 * and the `traceparent` headers need only the ids and the sampled flag. Made in place, the two
 * spans of a call stood between the client's request and the upstream call, and so in every
 * request's latency and every stream's first byte: their starts were about 40 µs of the 120 that
 * tracing added to a stream's first byte with the process idle between streams. Made here, the
 * request span's start takes about 10 µs of its 26; the attempt's did not move, its id and parent
 * context being its cost rather than the SDK's span (docs/performance.md, issue 25's twenty-third
 * round).
 *
 * The decision: the tracer's own sampler is asked now, with what the SDK passes it at start (the
 * parent context, the trace id, the name, the kind, no attributes, the links), and the SDK asks it
 * again when it makes the span. Every sampler `OTEL_TRACES_SAMPLER` names decides from the parent
 * context and the trace id alone, so both answers are the same, and what the headers said is what
 * is exported. A span the sampler does not record is never made: there is nothing to export.
 */
import { SamplingDecision, TraceFlags, trace, type Context, type Link, type Span, type SpanContext, type SpanKind, type TimeInput } from '@opentelemetry/api';
import type { SpanKit } from './span-kit.js';

export interface LateSpanStart {
  name: string;
  kind: SpanKind;
  /** The context the span is filed under (ROOT_CONTEXT for a new trace). */
  parent: Context;
  /** The span's trace id: the parent's, or the new trace's. */
  traceId: string;
  /** The span's id, chosen by the caller. */
  spanId: string;
  links: Link[];
  startTime: TimeInput;
}

export class LateSpan {
  /** The span's ids and sampled flag, as the SDK's span will have them: for `traceparent` headers and child spans. */
  readonly context: SpanContext;
  /** False when the sampler drops the span: no SDK span is made, only metrics are recorded. */
  readonly recording: boolean;
  #span: Span | undefined;

  constructor(kit: Pick<SpanKit, 'tracer' | 'ids' | 'sampler' | 'offPath'>, start: LateSpanStart) {
    // The parent is the request context's (validated by the propagator) or a span of ours.
    const parentContext = trace.getSpanContext(start.parent);
    const result = kit.sampler.shouldSample(start.parent, start.traceId, start.name, start.kind, {}, start.links);
    this.context = {
      traceId: start.traceId,
      spanId: start.spanId,
      traceFlags: result.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
    };
    // The SDK's rule: the sampler's trace state, else the parent's.
    const traceState = result.traceState ?? parentContext?.traceState;
    if (traceState !== undefined) this.context.traceState = traceState;
    this.recording = result.decision !== SamplingDecision.NOT_RECORD;
    if (!this.recording) return;
    kit.offPath.defer(() => {
      // The ids through the tracer's one-shot slots (chosen-id-generator.ts); the SDK asks for a
      // trace id only for a root span (a child takes its parent's), and both slots are cleared after.
      kit.ids.nextTraceId = start.traceId;
      kit.ids.nextSpanId = start.spanId;
      try {
        this.#span = kit.tracer.startSpan(start.name, { kind: start.kind, links: start.links, startTime: start.startTime }, start.parent);
      } finally {
        kit.ids.nextTraceId = undefined;
        kit.ids.nextSpanId = undefined;
      }
    });
  }

  /**
   * The SDK's span, for work queued on the off path after this span was started (it is made by
   * the work queued first); undefined when the span is not recorded or the SDK failed to make it.
   */
  get sdk(): Span | undefined {
    return this.#span;
  }
}
