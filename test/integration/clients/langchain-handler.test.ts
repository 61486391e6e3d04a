/**
 * `sidegate/langchain` with the real LangChain.js packages: a chain with a tool and `ChatOpenAI`
 * pointed at the gateway, the handler passed in `callbacks`. Every run becomes a log span and the
 * gateway's request and attempt spans hang under the LLM run's span: one trace, one tree (spans
 * exported into memory through the gateway's own SDK pipeline).
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { RunnableLambda } from '@langchain/core/runnables';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SidegateCallbackHandler } from '../../../src/client/langchain.js';
import { createTelemetry } from '../../../src/telemetry/create-telemetry.js';
import { mapSpanId, mapTraceId } from '../../../src/telemetry/map-id.js';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from '../harness.js';
import { WEATHER_QUESTION, weatherAgent } from './framework-runs.js';

const exporter = new InMemorySpanExporter();
let h: Harness;
beforeAll(async () => {
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none' },
    logger: () => {},
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  h = await startHarness({}, { telemetry });
});
afterAll(() => h.close());
beforeEach(() => {
  h.emulator.reset();
  exporter.reset();
});

describe('SidegateCallbackHandler', () => {
  it('makes one trace of a chain with a tool and ChatOpenAI, the gateway spans under the LLM runs', async () => {
    const handler = new SidegateCallbackHandler({ apiKey: GATEWAY_KEY, baseURL: `${h.gateway.url}/v1`, metadata: { user_name: 'ana' } });
    const answer = await weatherAgent(handler, PROVIDER_KEY).invoke(WEATHER_QUESTION, { callbacks: [handler] });
    expect(answer).toContain('get_weather returned');
    await handler.flush();

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [root] = byName('chain weather-agent') as [ReadableSpan];
    expect(root.parentSpanContext).toBeUndefined();
    const traceId = root.spanContext().traceId;
    expect(spans.every((s) => s.spanContext().traceId === traceId)).toBe(true);

    const llms = byName('llm ChatOpenAI');
    const [toolRun] = byName('tool get_weather') as [ReadableSpan];
    expect(llms).toHaveLength(2);
    for (const s of [...llms, toolRun]) expect(s.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(root.attributes['gateway.metadata.user_name']).toBe('ana');

    const requests = spans.filter((s) => s.kind === SpanKind.SERVER);
    expect(requests).toHaveLength(2);
    expect(requests.map((r) => r.parentSpanContext?.spanId).sort()).toStrictEqual(llms.map((l) => l.spanContext().spanId).sort());
    for (const request of requests) {
      const attempts = spans.filter((s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === request.spanContext().spanId);
      expect(attempts.map((a) => a.name)).toStrictEqual(['generate_content gemini-2.5-flash']);
    }
    // Usage is counted once: on the gateway's attempt spans, not again on the LLM run logs.
    expect(llms.every((s) => s.attributes['gen_ai.usage.input_tokens'] === undefined)).toBe(true);
    expect(spans.filter((s) => s.attributes['gen_ai.usage.input_tokens'] !== undefined)).toHaveLength(2);
  });

  it('names the trace with metadata.traceId, and maps run ids like the gateway headers', async () => {
    const handler = new SidegateCallbackHandler({ apiKey: GATEWAY_KEY, baseURL: `${h.gateway.url}/v1`, metadata: { traceId: 'session-7' } });
    const chain = RunnableLambda.from(async (x: string) => x.toUpperCase()).withConfig({ runName: 'upper' });
    let runId = '';
    await chain.invoke('hi', { callbacks: [handler, { handleChainStart: (_c: unknown, _i: unknown, id: string) => void (runId = id) }] });
    await handler.flush();
    const [span] = exporter.getFinishedSpans();
    expect(span!.spanContext().traceId).toBe(mapTraceId('session-7'));
    expect(span!.spanContext().spanId).toBe(mapSpanId(runId));
  });

  it('never throws into the chain when the gateway cannot take the logs', async () => {
    const errors: Error[] = [];
    const handler = new SidegateCallbackHandler({ apiKey: 'wrong-key-abc', baseURL: `${h.gateway.url}/v1`, onError: (e) => errors.push(e) });
    const chain = RunnableLambda.from(async (x: string) => `${x}!`).withConfig({ runName: 'bang' });
    expect(await chain.invoke('ok', { callbacks: [handler] })).toBe('ok!');
    await handler.flush();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain('401');
    expect(errors[0]!.message).not.toContain('wrong-key-abc');
    const unreachable = new SidegateCallbackHandler({ apiKey: GATEWAY_KEY, baseURL: 'http://127.0.0.1:9/v1', onError: (e) => errors.push(e) });
    expect(await chain.invoke('still', { callbacks: [unreachable] })).toBe('still!');
    await unreachable.flush();
    expect(errors).toHaveLength(2);
  });
});
