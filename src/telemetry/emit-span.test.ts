import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ChosenIdGenerator } from './chosen-id-generator.js';
import { emitSpan, millisToHrTime } from './emit-span.js';
import { SpanIdRegistry } from './span-id-registry.js';

describe('millisToHrTime', () => {
  it.each([
    [0, [0, 0]],
    [1_700_000_000_123.456, [1_700_000_000, 123_456_000]],
    [999.9995, [1, 0]],
    // Before this process started: must stay an epoch time, not be read as performance.now().
    [1_000, [1, 0]],
  ])('%s ms', (ms, want) => expect(millisToHrTime(ms)).toStrictEqual(want));
});

describe('emitSpan', () => {
  function setup() {
    const ids = new ChosenIdGenerator();
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ idGenerator: ids, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    return { ids, exporter, kit: { ids, tracer: provider.getTracer('t'), registry: new SpanIdRegistry() } };
  }
  const base = { kind: SpanKind.INTERNAL, startTime: millisToHrTime(1_000), endTime: millisToHrTime(3_500), attributes: {} };
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';

  it('gives the span the chosen ids, parent and times, and leaves the slots empty', () => {
    const { ids, exporter, kit } = setup();
    emitSpan(kit, { ...base, name: 'root', traceId, spanId: '00f067aa0ba902b7' });
    emitSpan(kit, { ...base, name: 'child', traceId, spanId: '1111111111111111', parentSpanId: '00f067aa0ba902b7', error: 'HTTP 500' });
    const [root, child] = exporter.getFinishedSpans();
    expect(root!.spanContext()).toMatchObject({ traceId, spanId: '00f067aa0ba902b7' });
    expect(root!.startTime).toStrictEqual([1, 0]);
    expect(root!.endTime).toStrictEqual([3, 500_000_000]);
    expect(child!.spanContext()).toMatchObject({ traceId, spanId: '1111111111111111' });
    expect(child!.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(child!.status).toStrictEqual({ code: 2, message: 'HTTP 500' });
    expect([ids.nextTraceId, ids.nextSpanId]).toStrictEqual([undefined, undefined]);
  });

  it('gives a span id used before in the trace a fresh id and a link to the first holder (Decision 1)', () => {
    const { exporter, kit } = setup();
    emitSpan(kit, { ...base, name: 'a', traceId, spanId: '00f067aa0ba902b7' });
    emitSpan(kit, { ...base, name: 'b', traceId, spanId: '00f067aa0ba902b7' });
    const [, second] = exporter.getFinishedSpans();
    expect(second!.spanContext().traceId).toBe(traceId);
    expect(second!.spanContext().spanId).not.toBe('00f067aa0ba902b7');
    expect(second!.links.map((l) => l.context.spanId)).toStrictEqual(['00f067aa0ba902b7']);
  });
});
