import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace-base';

/**
 * Hands the tracer the ids chosen for the next span (Decision 1). `Tracer.startSpan` asks for
 * ids synchronously, so a one-shot slot set right before the call is per-call state.
 */
export class ChosenIdGenerator implements IdGenerator {
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
