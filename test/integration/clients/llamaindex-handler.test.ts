/**
 * `sidegate/llamaindex` with the real LlamaIndex.TS packages: a query over a two-document
 * in-memory index, the gateway serving both the LLM and the embeddings. Every event becomes a log
 * span; the gateway's spans join the tree under the LLM event and the retrieval; one trace.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SidegateLlamaIndexHandler } from '../../../src/client/llamaindex.js';
import { createTelemetry } from '../../../src/telemetry/create-telemetry.js';
import { mapTraceId } from '../../../src/telemetry/map-id.js';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from '../harness.js';
import { runLlamaQuery } from './framework-runs.js';

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

describe('SidegateLlamaIndexHandler', () => {
  it('makes one trace of a query over an in-memory index, gateway LLM and embedding spans included', async () => {
    const handler = new SidegateLlamaIndexHandler({ apiKey: GATEWAY_KEY, baseURL: `${h.gateway.url}/v1`, metadata: { traceId: 'llama-run-1', user_name: 'ana' } }).register();
    try {
      const answer = await runLlamaQuery(`${h.gateway.url}/v1`, handler, PROVIDER_KEY);
      // The emulator echoes the prompt: the retrieved context is the France document.
      expect(answer).toContain('Paris is the capital of France');
      expect(answer).not.toContain('Nile');
      await handler.flush();
    } finally {
      handler.unregister();
    }
    const spans = exporter.getFinishedSpans();
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toStrictEqual(new Set([mapTraceId('llama-run-1')]));
    const named = (n: string) => spans.filter((s) => s.name === n);
    const [query] = named('query') as [ReadableSpan];
    expect(query.parentSpanContext).toBeUndefined();
    const [retrieve] = named('retrieve') as [ReadableSpan];
    expect(retrieve.parentSpanContext?.spanId).toBe(query.spanContext().spanId);
    const [llm] = named('llm') as [ReadableSpan];
    const requests = spans.filter((s) => s.kind === SpanKind.SERVER);
    const chat = requests.filter((s) => s.name === 'chat gemini-2.5-flash');
    expect(chat).toHaveLength(1);
    expect(chat[0]!.parentSpanContext?.spanId).toBe(llm.spanContext().spanId);
    const embeds = requests.filter((s) => s.name === 'embeddings gemini-embedding-001');
    expect(embeds.length).toBeGreaterThanOrEqual(2);
    // The query's own embedding is made during retrieval, under it.
    expect(embeds.some((e) => e.parentSpanContext?.spanId === retrieve.spanContext().spanId)).toBe(true);
    for (const request of requests) {
      expect(spans.some((s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === request.spanContext().spanId)).toBe(true);
    }
  });
});
