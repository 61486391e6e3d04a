/**
 * The Responses API through the official `openai` SDK (`client.responses.*`) → gateway → Gemini
 * emulator, with the real OTel SDK exporting into memory. Asserts what the client got, the exact
 * request the emulator received, and the spans.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleError } from '../../../src/emulator/index.js';
import { PROVIDER_KEY } from '../harness.js';
import { geminiChunk, geminiReply } from '../capabilities/helpers.js';
import { startRoutingHarness, type RoutingHarness } from '../routing/routing-harness.js';

let h: RoutingHarness;
beforeAll(async () => {
  h = await startRoutingHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const RESP_ID = /^resp_[0-9a-f]{32}$/;
const usage = { promptTokenCount: 11, candidatesTokenCount: 7, thoughtsTokenCount: 5, cachedContentTokenCount: 3, totalTokenCount: 23 };

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(OpenAI.APIError);
    return err as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('expected the call to fail');
}

describe('client.responses.create', () => {
  it('translates the request and answers in the Responses shape, with spans like the chat route', async () => {
    h.emulator.enqueue({
      status: 200,
      body: {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Hello from Gemini.' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usage,
        modelVersion: 'gemini-2.5-flash',
        responseId: 'g-1',
      },
    });
    const { data: response, response: http } = await h.client.responses
      .create({
        model: 'gemini-2.5-flash',
        instructions: 'Be terse.',
        input: [
          { role: 'developer', content: 'Answer in English.' },
          { role: 'user', content: [{ type: 'input_text', text: 'Say hello.' }] },
        ],
        temperature: 0.3,
        top_p: 0.9,
        max_output_tokens: 100,
        metadata: { team: 'a' },
        service_tier: 'auto',
        store: true,
      })
      .withResponse();

    expect(response.id).toMatch(RESP_ID);
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gemini-2.5-flash',
      instructions: 'Be terse.',
      metadata: { team: 'a' },
      temperature: 0.3,
      max_output_tokens: 100,
      error: null,
      incomplete_details: null,
      usage: { input_tokens: 11, input_tokens_details: { cached_tokens: 3 }, output_tokens: 12, output_tokens_details: { reasoning_tokens: 5 }, total_tokens: 23 },
    });
    expect(response.output).toStrictEqual([
      {
        type: 'message',
        id: expect.stringMatching(/^msg_[0-9a-f]{36}$/),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello from Gemini.', annotations: [], logprobs: [] }],
      },
    ]);
    expect(response.output_text).toBe('Hello from Gemini.');

    expect(h.emulator.requests).toHaveLength(1);
    const [upstream] = h.emulator.requests;
    expect(upstream!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(upstream!.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
    expect(upstream!.body).toStrictEqual({
      systemInstruction: { parts: [{ text: 'Be terse.' }, { text: 'Answer in English.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }],
      generationConfig: { maxOutputTokens: 100, temperature: 0.3, topP: 0.9 },
    });

    const traceparent = http.headers.get('traceparent');
    const request = h.requestSpan(traceparent);
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(request.attributes['gen_ai.request.model']).toBe('gemini-2.5-flash');
    expect(request.attributes['gateway.attempts']).toBe(1);
    expect(request.attributes['http.route']).toBe('/v1/responses');
    expect(request.attributes['gen_ai.operation.name']).toBe('chat');
    const [attempt, ...more] = h.attempts(traceparent);
    expect(more).toStrictEqual([]);
    expect(attempt!.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(attempt!.attributes).toMatchObject({
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'gen_ai.usage.input_tokens': 11,
      'http.response.status_code': 200,
      'gateway.warnings': ['ignored_param:service_tier'],
    });
    expect(attempt!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(JSON.stringify([request.attributes, attempt!.attributes])).not.toContain(PROVIDER_KEY);
  });

  it('streams the typed events in order, each with sequence_number, and no [DONE]', async () => {
    h.emulator.enqueue({
      chunks: [geminiChunk([{ text: 'Hel' }]), geminiChunk([{ text: 'lo' }]), geminiChunk([{ text: '' }], { finishReason: 'STOP' })],
    });
    const stream = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'Say hello.', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.type)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toStrictEqual(events.map((_, i) => i));
    const done = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(done.response.output_text).toBe('Hello');
    expect(done.response.usage).toMatchObject({ input_tokens: 4, output_tokens: 2, total_tokens: 6 });
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }] });

    // The SDK's own stream helper accumulates the same answer.
    h.emulator.enqueue({ chunks: [geminiChunk([{ text: 'Again' }], { finishReason: 'STOP' })] });
    const final = await h.client.responses.stream({ model: 'gemini-2.5-flash', input: 'x' }).finalResponse();
    expect(final.output_text).toBe('Again');
  });

  it('a failure after the stream started → response.failed then an error the SDK throws', async () => {
    h.emulator.enqueue({ chunks: [geminiChunk([{ text: 'partial' }])], end: { error: googleError(503, 'The model is overloaded.') } });
    const stream = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'x', stream: true });
    const seen: string[] = [];
    const err = await failure(
      (async () => {
        for await (const e of stream) seen.push(e.type);
      })(),
    );
    expect(err.message).toContain('overloaded');
    expect(seen.slice(-2)).toStrictEqual(['response.output_text.delta', 'response.failed']);
  });

  it('a tool loop with function_call_output on Gemini 3: the signature round-trips through the store in strict mode', async () => {
    h.emulator.enqueue(
      geminiReply([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLWNhbGw=' }], {}, 'gemini-3-flash-preview'),
      geminiReply([{ text: 'It is sunny in Paris.' }], {}, 'gemini-3-flash-preview'),
    );
    const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await h.client.responses.create({ model: 'gemini-3-flash-preview', input, tools: [weatherTool] });
    expect(first.output).toHaveLength(1);
    const call = first.output[0]!;
    expect(call).toStrictEqual({
      type: 'function_call',
      id: expect.stringMatching(/^fc_/),
      call_id: expect.stringMatching(/^call-/),
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
      status: 'completed',
    });
    if (call.type !== 'function_call') throw new Error('expected a call');

    const second = await h.client.responses.create({
      model: 'gemini-3-flash-preview',
      input: [...input, ...(first.output as unknown as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"sunny"}' }],
      tools: [weatherTool],
    });
    expect(second.output_text).toBe('It is sunny in Paris.');
    expect(h.emulator.requests[1]!.body).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnLWNhbGw=' }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { sky: 'sunny' } } }] },
      ],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather',
              parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
            },
          ],
        },
      ],
    });
  });

  it('non-strict: signatures are on the items themselves, so a store: false loop works too', async () => {
    h.emulator.enqueue(
      geminiReply([{ functionCall: { name: 'get_weather', args: { city: 'Rome' } }, thoughtSignature: 'c2lnLXJvbWU=' }], {}, 'gemini-3-flash-preview'),
      geminiReply([{ text: 'Warm.' }], {}, 'gemini-3-flash-preview'),
    );
    const opts = { headers: { 'x-gateway-strict-compliance': 'false' } };
    const first = await h.client.responses.create({ model: 'gemini-3-flash-preview', input: 'Rome?', tools: [weatherTool], store: false }, opts);
    const call = first.output[0] as unknown as Record<string, unknown>;
    expect(call.thought_signature).toBe('c2lnLXJvbWU=');
    const second = await h.client.responses.create(
      {
        model: 'gemini-3-flash-preview',
        input: [{ role: 'user', content: 'Rome?' }, ...(first.output as unknown as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id as string, output: 'warm' }],
        tools: [weatherTool],
        store: false,
      },
      opts,
    );
    expect(second.output_text).toBe('Warm.');
    expect((h.emulator.requests[1]!.body as { contents: Array<{ parts: unknown[] }> }).contents[1]!.parts[0]).toMatchObject({ thoughtSignature: 'c2lnLXJvbWU=' });
    await expect(h.client.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
  });

  it('previous_response_id continues the conversation; GET, input_items and DELETE read the store', async () => {
    h.emulator.enqueue(geminiReply([{ text: 'Nice to meet you, Ada.' }]), geminiReply([{ text: 'Your name is Ada.' }]));
    const first = await h.client.responses.create({ model: 'gemini-2.5-flash', instructions: 'Be kind.', input: 'My name is Ada.' });
    const second = await h.client.responses.create({ model: 'gemini-2.5-flash', input: 'What is my name?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    expect(h.emulator.requests[1]!.body).toStrictEqual({
      // instructions are not carried over (as on OpenAI)
      contents: [
        { role: 'user', parts: [{ text: 'My name is Ada.' }] },
        { role: 'model', parts: [{ text: 'Nice to meet you, Ada.' }] },
        { role: 'user', parts: [{ text: 'What is my name?' }] },
      ],
    });

    const got = await h.client.responses.retrieve(second.id);
    expect(got.output_text).toBe('Your name is Ada.');
    expect(got.id).toBe(second.id);
    const items = await h.client.responses.inputItems.list(second.id);
    expect(items.data).toStrictEqual([{ type: 'message', role: 'user', content: 'What is my name?', id: expect.stringMatching(/^msg_/) }]);

    const deleted = await h.client.responses.delete(first.id);
    expect(deleted).toMatchObject({ id: first.id, object: 'response', deleted: true });
    const gone = await failure(h.client.responses.retrieve(first.id));
    expect(gone.status).toBe(404);
    expect(gone.message).toContain(first.id);
    const chainBroken = await failure(h.client.responses.create({ model: 'gemini-2.5-flash', input: 'x', previous_response_id: second.id }));
    expect(chainBroken.status).toBe(404);
    expect(chainBroken.message).toContain(first.id);
    expect(h.emulator.requests).toHaveLength(2);
  });

  it('structured output: json_schema → responseMimeType + responseJsonSchema; the SDK parses it', async () => {
    h.emulator.enqueue(geminiReply([{ text: '{"city":"Paris","temp":21}' }]));
    const schema = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'number' } }, required: ['city', 'temp'], additionalProperties: false };
    const parsed = await h.client.responses.parse({
      model: 'gemini-2.5-flash',
      input: 'Weather as JSON',
      text: { format: { type: 'json_schema', name: 'weather', schema, strict: true } },
    });
    expect(parsed.output_parsed).toStrictEqual({ city: 'Paris', temp: 21 });
    expect(h.emulator.requests[0]!.body).toMatchObject({ generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } });
  });

  it('refuses what it cannot honour, naming param, before calling upstream', async () => {
    const cases: Array<[Record<string, unknown>, string, number]> = [
      [{ frobnicate: true }, 'frobnicate', 400],
      [{ background: true }, 'background', 400],
      [{ tools: [{ type: 'file_search', vector_store_ids: ['v'] }] }, 'tools[0].type', 400],
      [{ input: [{ type: 'item_reference', id: 'msg_nope' }] }, 'input[0]', 400],
      [{ previous_response_id: 'resp_00000000000000000000000000000000' }, 'previous_response_id', 404],
      [{ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png,notbase64' }] }] }, 'input[0].content[0]', 400],
    ];
    for (const [extra, param, status] of cases) {
      const err = await failure(h.client.responses.create({ model: 'gemini-2.5-flash', input: 'x', ...extra } as never));
      expect([err.status, (err.error as { param?: string }).param]).toStrictEqual([status, param]);
    }
    expect(h.emulator.requests).toHaveLength(0);
  });

  it('retries like the chat route under a routing config (one attempt span per try)', async () => {
    h.emulator.enqueue({ status: 503, body: googleError(503, 'overloaded') }, geminiReply([{ text: 'ok' }]));
    const { data, response } = await h.client.responses
      .create({ model: 'gemini-2.5-flash', input: 'x' }, { headers: { 'x-gateway-config': JSON.stringify({ retry: { attempts: 1 } }) } })
      .withResponse();
    expect(data.output_text).toBe('ok');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('1');
    expect(h.attempts(response.headers.get('traceparent')).map((s) => s.attributes['http.response.status_code'])).toStrictEqual([503, 200]);
  });
});
