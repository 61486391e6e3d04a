/**
 * End to end against a real Jaeger (issue 9): a LangChain.js chain with a tool and `ChatOpenAI`,
 * and a LlamaIndex.TS query over a two-document in-memory index (gateway for both LLM and
 * embeddings), each with the sidegate handler. Each run must be exactly one trace in Jaeger: the
 * framework's spans (from the handler's logs) and the gateway's request and attempt spans,
 * correctly parented, read back from Jaeger's own API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SidegateCallbackHandler } from '../../src/client/langchain.js';
import { SidegateLlamaIndexHandler } from '../../src/client/llamaindex.js';
import { mapTraceId } from '../../src/telemetry/map-id.js';
import { createJaegerReader } from '../../src/traces/jaeger-reader.js';
import { runLlamaQuery, WEATHER_QUESTION, weatherAgent } from '../integration/clients/framework-runs.js';
import { CLIENT, SERVER, startGatewayUnderTest, type GatewayUnderTest } from './gateway-under-test.js';
import { ensureBinary, readTrace, startJaeger, type Jaeger, type StoredSpan } from './otel-binaries.js';

const GATEWAY_KEY = 'sg-e2e-gateway-key-frameworks-01';
const PROVIDER_KEY = 'AIzaE2eFrameworksKey0123456789abcd';
const SERVICE = 'sidegate-e2e-frameworks';

const binary = await ensureBinary('jaeger');
if (binary === null && process.env.CI === 'true') throw new Error('Jaeger binary missing (CI=true): run scripts/ensure-otel-binaries.sh all');
if (binary === null) console.warn('SKIPPING framework traces e2e: no Jaeger binary (scripts/ensure-otel-binaries.sh all)');

describe.skipIf(binary === null)('framework runs as one trace in a real Jaeger', () => {
  let jaeger: Jaeger;
  let under: GatewayUnderTest;
  let baseURL: string;

  beforeAll(async () => {
    jaeger = await startJaeger(binary as string);
    under = await startGatewayUnderTest({ otlpEndpoint: jaeger.otlpHttp, serviceName: SERVICE, gatewayKey: GATEWAY_KEY, providerKey: PROVIDER_KEY });
    baseURL = `${under.gateway.url}/v1`;
  });
  afterAll(async () => {
    await under?.close();
    await jaeger?.close();
  });

  /** Trace ids Jaeger holds for the service since `since` (through the gateway's own Jaeger reader). */
  async function traceIdsSince(since: Date): Promise<string[]> {
    const traces = await createJaegerReader({ url: jaeger.query }).findTraces({ service: SERVICE, since, until: new Date(Date.now() + 60_000), limit: 50 });
    return [...new Set(traces.map((spans) => spans[0]!.traceId))];
  }

  const children = (all: StoredSpan[], parent: StoredSpan) => all.filter((s) => s.parentSpanId === parent.spanId);

  it('LangChain: chain → LLM runs → gateway request → attempt, and the tool, in one trace', async () => {
    const since = new Date();
    const handler = new SidegateCallbackHandler({ apiKey: GATEWAY_KEY, baseURL, metadata: { user_name: 'e2e' } });
    let rootRunId = '';
    const answer = await weatherAgent(handler, PROVIDER_KEY).invoke(WEATHER_QUESTION, {
      callbacks: [handler, { handleChainStart: (_c: unknown, _i: unknown, id: string, parent?: string) => void (parent === undefined && (rootRunId = id)) }],
    });
    expect(answer).toContain('get_weather returned');
    await handler.flush();
    await under.telemetry.forceFlush();

    const traceId = mapTraceId(rootRunId);
    const all = await readTrace(jaeger.query, traceId, 8);
    expect(all).toHaveLength(8);
    const [root, ...others] = all.filter((s) => s.parentSpanId === '');
    expect(others).toHaveLength(0);
    expect(root!.name).toBe('chain weather-agent');
    const kids = children(all, root!);
    expect(kids.map((s) => s.name).sort()).toStrictEqual(['llm ChatOpenAI', 'llm ChatOpenAI', 'tool get_weather']);
    for (const llm of kids.filter((s) => s.name === 'llm ChatOpenAI')) {
      const [request, ...more] = children(all, llm);
      expect(more).toHaveLength(0);
      expect(request!.kind).toBe(SERVER);
      expect(request!.name).toBe('chat gemini-2.5-flash');
      const attempts = children(all, request!);
      expect(attempts.map((a) => [a.kind, a.name])).toStrictEqual([[CLIENT, 'generate_content gemini-2.5-flash']]);
    }
    expect(await traceIdsSince(since)).toStrictEqual([traceId]);
  });

  it('LlamaIndex.TS: a query over a two-document index, LLM and embeddings through the gateway, in one trace', async () => {
    const since = new Date();
    const handler = new SidegateLlamaIndexHandler({ apiKey: GATEWAY_KEY, baseURL, metadata: { traceId: 'llama-e2e-run' } }).register();
    try {
      const answer = await runLlamaQuery(baseURL, handler, PROVIDER_KEY);
      expect(answer).toContain('Paris is the capital of France');
      await handler.flush();
    } finally {
      handler.unregister();
    }
    await under.telemetry.forceFlush();

    const traceId = mapTraceId('llama-e2e-run');
    // query, retrieve, synthesize, llm; chat request + attempt; 2 embedding requests (the two
    // documents in one batch, then the query) + their attempts.
    const all = await readTrace(jaeger.query, traceId, 10);
    expect(all).toHaveLength(10);
    const [query] = all.filter((s) => s.name === 'query');
    expect(query!.parentSpanId).toBe('');
    const [retrieve] = all.filter((s) => s.name === 'retrieve');
    expect(retrieve!.parentSpanId).toBe(query!.spanId);
    const [llm] = all.filter((s) => s.name === 'llm');
    const [chat] = all.filter((s) => s.kind === SERVER && s.name === 'chat gemini-2.5-flash');
    expect(chat!.parentSpanId).toBe(llm!.spanId);
    const embeds = all.filter((s) => s.kind === SERVER && s.name === 'embeddings gemini-embedding-001');
    expect(embeds).toHaveLength(2);
    expect(embeds.some((e) => e.parentSpanId === retrieve!.spanId)).toBe(true);
    for (const request of [chat!, ...embeds]) expect(children(all, request).map((a) => a.kind)).toStrictEqual([CLIENT]);
    expect(await traceIdsSince(since)).toStrictEqual([traceId]);
  });
});
