/**
 * The SDKs users already have, unchanged except for their base URL, against the gateway and the
 * emulator (issue 9 item 4), at the versions the issue names for Node 20: `portkey-ai`, the
 * official `openai` SDK, LangChain's `ChatOpenAI`, LlamaIndex.TS's `OpenAI` LLM and embedding,
 * and the Vercel AI SDK's OpenAI-compatible provider. A field or header one of them sends that
 * the gateway rejected would fail here. Spans are exported into memory to check that their
 * tracing options arrive.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { tool as lcTool } from '@langchain/core/tools';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { OpenAI as LlamaOpenAI, OpenAIEmbedding } from '@llamaindex/openai';
import { generateText, stepCountIs, streamText, tool as aiTool } from 'ai';
import { Portkey } from 'portkey-ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTelemetry } from '../../../src/telemetry/create-telemetry.js';
import { mapTraceId } from '../../../src/telemetry/map-id.js';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from '../harness.js';

const exporter = new InMemorySpanExporter();
let h: Harness;
let baseURL: string;
beforeAll(async () => {
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none' },
    logger: () => {},
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  h = await startHarness({}, { telemetry });
  baseURL = `${h.gateway.url}/v1`;
});
afterAll(() => h.close());
beforeEach(() => {
  h.emulator.reset();
  exporter.reset();
});

const MODEL = 'gemini-2.5-flash';
const gatewayHeaders = { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google' };
const requestSpans = () => exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
const generateCalls = () => h.emulator.requests.filter((r) => r.rpc === 'generateContent' || r.rpc === 'streamGenerateContent');
const weatherPrompt = 'What is the weather? Call get_weather {"city":"Paris"} please.';

describe('portkey-ai 3.1.0', () => {
  const portkey = (extra: Record<string, unknown> = {}) =>
    new Portkey({ apiKey: GATEWAY_KEY, baseURL, provider: 'google', Authorization: `Bearer ${PROVIDER_KEY}`, maxRetries: 0, ...extra } as never);

  it('chat with its trace id, metadata and config reaching the gateway as x-portkey-*', async () => {
    const client = portkey({ traceID: 'portkey-trace-1', metadata: { _user: 'ana', team: 'search' }, config: { retry: { attempts: 1 } } });
    const completion = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello' }] });
    expect(completion.choices![0]!.message!.content).toBe('Echo: Hello');
    const [span] = requestSpans();
    expect(span!.spanContext().traceId).toBe(mapTraceId('portkey-trace-1'));
    expect(span!.attributes['gateway.metadata.team']).toBe('search');
    expect(generateCalls()[0]!.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
  });

  it('streams', async () => {
    const stream = await portkey().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hello stream' }], stream: true });
    let text = '';
    for await (const chunk of stream as AsyncIterable<{ choices: Array<{ delta?: { content?: string } }> }>) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Echo: Hello stream');
  });
});

describe('openai SDK', () => {
  it('chat, stream, tools, embeddings and models', async () => {
    const c = h.client;
    expect((await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] })).choices[0]!.message.content).toBe('Echo: Hi');
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const called = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: weatherPrompt }], tools });
    expect(called.choices[0]!.message.tool_calls?.[0]).toMatchObject({ function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    const embedded = await c.embeddings.create({ model: 'gemini-embedding-001', input: 'hello' });
    expect(embedded.data[0]!.embedding).toHaveLength(3072);
    expect((await c.models.retrieve('gemini-embedding-001')).id).toBe('gemini-embedding-001');
  });
});

describe('LangChain.js: @langchain/openai 1.5.8 with @langchain/core 1.4.0', () => {
  const chat = () => new ChatOpenAI({ model: MODEL, apiKey: PROVIDER_KEY, maxRetries: 0, configuration: { baseURL, defaultHeaders: gatewayHeaders } });

  it('invoke and stream', async () => {
    expect((await chat().invoke('Hello LangChain')).content).toBe('Echo: Hello LangChain');
    let text = '';
    for await (const chunk of await chat().stream('Hello stream')) text += chunk.content as string;
    expect(text).toBe('Echo: Hello stream');
  });

  it('a tool round trip with bindTools', async () => {
    const getWeather = lcTool(async ({ city }: { city: string }) => `18C in ${city}`, {
      name: 'get_weather',
      description: 'Weather of a city',
      schema: z.object({ city: z.string() }),
    });
    const model = chat().bindTools([getWeather]);
    const first = await model.invoke([new HumanMessage(weatherPrompt)]);
    expect(first.tool_calls).toStrictEqual([{ name: 'get_weather', args: { city: 'Paris' }, id: expect.any(String), type: 'tool_call' }]);
    const result = await getWeather.invoke(first.tool_calls![0]!);
    const second = await model.invoke([new HumanMessage(weatherPrompt), first, result as ToolMessage]);
    expect(second.content).toContain('get_weather returned');
  });

  it('OpenAIEmbeddings', async () => {
    const embeddings = new OpenAIEmbeddings({ model: 'gemini-embedding-001', apiKey: PROVIDER_KEY, dimensions: 16, configuration: { baseURL, defaultHeaders: gatewayHeaders } });
    const vectors = await embeddings.embedDocuments(['one', 'two']);
    expect(vectors.map((v) => v.length)).toStrictEqual([16, 16]);
    expect((await embeddings.embedQuery('three')).length).toBe(16);
  });
});

describe('LlamaIndex.TS: llamaindex 0.12.1 with @llamaindex/openai 0.4.22', () => {
  const session = { defaultHeaders: gatewayHeaders };

  it('chat and stream with the OpenAI LLM', async () => {
    const llm = new LlamaOpenAI({ model: MODEL, apiKey: PROVIDER_KEY, baseURL, maxRetries: 0, additionalSessionOptions: session });
    const answer = await llm.chat({ messages: [{ role: 'user', content: 'Hello Llama' }] });
    expect(answer.message.content).toBe('Echo: Hello Llama');
    let text = '';
    for await (const chunk of await llm.chat({ messages: [{ role: 'user', content: 'Hello stream' }], stream: true })) text += chunk.delta;
    expect(text).toBe('Echo: Hello stream');
  });

  it('OpenAIEmbedding', async () => {
    const embed = new OpenAIEmbedding({ model: 'gemini-embedding-001', apiKey: PROVIDER_KEY, dimensions: 8, baseURL, maxRetries: 0, additionalSessionOptions: session });
    expect((await embed.getTextEmbeddings(['a', 'b'])).map((v) => v.length)).toStrictEqual([8, 8]);
  });
});

describe('Vercel AI SDK: ai 6 with @ai-sdk/openai-compatible 2', () => {
  const provider = () => createOpenAICompatible({ name: 'sidegate', baseURL, apiKey: PROVIDER_KEY, headers: { ...gatewayHeaders, 'x-gateway-trace-id': 'ai-sdk-run' } });

  it('generateText and streamText', async () => {
    const { text } = await generateText({ model: provider().chatModel(MODEL), prompt: 'Hello AI SDK', maxRetries: 0 });
    expect(text).toBe('Echo: Hello AI SDK');
    const streamed = streamText({ model: provider().chatModel(MODEL), prompt: 'Hello stream', maxRetries: 0 });
    expect(await streamed.text).toBe('Echo: Hello stream');
    expect(requestSpans().every((s) => s.spanContext().traceId === mapTraceId('ai-sdk-run'))).toBe(true);
  });

  it('tool calls over two steps', async () => {
    const result = await generateText({
      model: provider().chatModel(MODEL),
      prompt: weatherPrompt,
      tools: {
        get_weather: aiTool({ description: 'Weather of a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `18C in ${city}` }),
      },
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    expect(result.steps[0]!.toolCalls.map((c) => [c.toolName, c.input])).toStrictEqual([['get_weather', { city: 'Paris' }]]);
    expect(result.text).toContain('get_weather returned');
  });

  it('embeddings through the provider', async () => {
    const { embedMany } = await import('ai');
    const { embeddings } = await embedMany({ model: provider().textEmbeddingModel('gemini-embedding-001'), values: ['a', 'b'], maxRetries: 0 });
    expect(embeddings.map((e) => e.length)).toStrictEqual([3072, 3072]);
  });
});
