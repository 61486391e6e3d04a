/**
 * The core path through real HTTP: official `openai` SDK → gateway → Gemini emulator. Asserts what
 * the client got and the exact request the emulator received.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway } from '../../src/gateway/start-gateway.js';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const usage = { promptTokenCount: 11, candidatesTokenCount: 7, thoughtsTokenCount: 5, cachedContentTokenCount: 3, totalTokenCount: 23 };

describe('non-streaming chat completions', () => {
  it('translates the request and the answer', async () => {
    h.emulator.enqueue({
      status: 200,
      body: {
        candidates: [{ content: { role: 'model', parts: [{ text: 'Hello from Gemini.' }] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usage,
        modelVersion: 'gemini-2.5-flash',
        responseId: 'resp-1',
      },
    });
    const completion = await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }, { type: 'text', text: 'No emojis.' }] },
        { role: 'user', content: 'Hi' },
        { role: 'user', content: 'there' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Say hello.' },
      ],
      max_tokens: 100,
      temperature: 0.3,
      top_p: 0.9,
      stop: 'END',
      n: 1,
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      response_format: { type: 'json_object' },
    });

    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gemini-2.5-flash');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(typeof completion.created).toBe('number');
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.message.role).toBe('assistant');
    expect(completion.choices[0]!.message.content).toBe('Hello from Gemini.');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({
      prompt_tokens: 11,
      completion_tokens: 12,
      total_tokens: 23,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 5 },
    });

    const [upstream] = h.emulator.requests;
    expect(h.emulator.requests).toHaveLength(1);
    expect(upstream!.method).toBe('POST');
    expect(upstream!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(upstream!.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
    expect(upstream!.path).not.toContain(PROVIDER_KEY);
    expect(upstream!.headers['authorization']).toBeUndefined();
    expect(upstream!.headers['x-gateway-api-key']).toBeUndefined();
    expect(upstream!.body).toStrictEqual({
      systemInstruction: { parts: [{ text: 'Be terse.' }, { text: 'Answer in English.' }, { text: 'No emojis.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }, { text: 'there' }] },
        { role: 'model', parts: [{ text: 'Hello!' }] },
        { role: 'user', parts: [{ text: 'Say hello.' }] },
      ],
      generationConfig: {
        maxOutputTokens: 100,
        temperature: 0.3,
        topP: 0.9,
        stopSequences: ['END'],
        candidateCount: 1,
        seed: 7,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        responseMimeType: 'application/json',
      },
    });
  });

  it('maps json_schema, max_completion_tokens and several candidates', async () => {
    h.emulator.enqueue({
      status: 200,
      body: {
        candidates: [
          { content: { role: 'model', parts: [{ text: '{"a":1}' }] }, finishReason: 'STOP', index: 0 },
          { content: { role: 'model', parts: [{ text: '{"a":' }] }, finishReason: 'MAX_TOKENS', index: 1 },
        ],
        usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 6, totalTokenCount: 10 },
      },
    });
    const schema = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false };
    const completion = await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'json please' }],
      max_completion_tokens: 50,
      n: 2,
      stop: ['x', 'y'],
      response_format: { type: 'json_schema', json_schema: { name: 'thing', schema } },
    });
    expect(completion.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toStrictEqual([
      [0, '{"a":1}', 'stop'],
      [1, '{"a":', 'length'],
    ]);
    expect(h.emulator.requests[0]!.body).toMatchObject({
      generationConfig: {
        maxOutputTokens: 50,
        candidateCount: 2,
        stopSequences: ['x', 'y'],
        responseMimeType: 'application/json',
        responseJsonSchema: schema,
      },
    });
  });

  it.each(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY'])(
    'maps finishReason %s to content_filter',
    async (reason) => {
      h.emulator.enqueue({
        status: 200,
        body: { candidates: [{ content: { role: 'model' }, finishReason: reason, index: 0 }], usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } },
      });
      const completion = await h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }] });
      expect(completion.choices[0]!.finish_reason).toBe('content_filter');
    },
  );

  it('answers a prompt blocked outright with content_filter, never an empty stop', async () => {
    h.emulator.enqueue({
      status: 200,
      body: { promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } },
    });
    const completion = await h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'bad' }] });
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]!.finish_reason).toBe('content_filter');
    expect(completion.choices[0]!.message.content ?? '').toBe('');
  });

  it('sends a bare Authorization key upstream the same way', async () => {
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google', authorization: PROVIDER_KEY },
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(h.emulator.requests[0]!.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
  });
});

describe('streaming chat completions', () => {
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}, usageMetadata: Record<string, number> = { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 }) => ({
    data: {
      candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
      usageMetadata,
      modelVersion: 'gemini-2.5-flash',
      responseId: 'stream-1',
    },
  });

  it('relays chunks with role first, finish_reason last and one usage chunk', async () => {
    h.emulator.enqueue({
      chunks: [
        chunk([{ text: 'Hel' }]),
        chunk([{ text: 'lo' }]),
        chunk([{ text: ' world' }], { finishReason: 'STOP' }, { promptTokenCount: 4, candidatesTokenCount: 3, thoughtsTokenCount: 2, totalTokenCount: 9 }),
      ],
    });
    const stream = await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'greet' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const c of stream) chunks.push(c);

    const contentChunks = chunks.filter((c) => c.choices.length > 0);
    expect(contentChunks[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(contentChunks.map((c) => c.choices[0]!.delta.content ?? '').join('')).toBe('Hello world');
    expect(contentChunks.slice(0, -1).every((c) => c.choices[0]!.finish_reason === null)).toBe(true);
    expect(contentChunks.at(-1)!.choices[0]!.finish_reason).toBe('stop');
    const usageChunks = chunks.filter((c) => c.usage);
    expect(usageChunks).toHaveLength(1);
    expect(usageChunks[0]!.choices).toStrictEqual([]);
    expect(usageChunks[0]!.usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 5, total_tokens: 9 });
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gemini-2.5-flash')).toBe(true);

    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
  });

  it('ends the raw stream with data: [DONE] and sends no usage chunk unless asked', async () => {
    h.emulator.enqueue({ chunks: [chunk([{ text: 'Hi' }], { finishReason: 'STOP' })] });
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: h.headers,
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).not.toContain('"usage":{');
  });

  it('relays each chunk as it arrives, before upstream has finished', async () => {
    // An upstream that sends the second chunk only after the client has seen the first: a gateway
    // that buffered the answer would never deliver the first, and the test would time out.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk([{ text: 'first' }]).data)}\r\n\r\n`);
      void released.then(() => res.end(`data: ${JSON.stringify(chunk([{ text: ' second' }], { finishReason: 'STOP' }).data)}\r\n\r\n`));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const gw = await startGateway(
      { port: 0, geminiBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, apiKeys: [GATEWAY_KEY] },
      { log: () => {} },
    );
    try {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: PROVIDER_KEY, defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google' } });
      const stream = await client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], stream: true });
      const iterator = stream[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.value?.choices[0]?.delta.content).toBe('first');
      release();
      const rest = [];
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) rest.push(r.value);
      expect(rest.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(' second');
      expect(rest.at(-1)?.choices[0]?.finish_reason).toBe('stop');
    } finally {
      release();
      await gw.close();
      upstream.closeAllConnections();
      await new Promise<void>((r) => upstream.close(() => r()));
    }
  });

  it.each([
    { name: 'an in-stream error event', end: { error: { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } } } },
    { name: 'a dropped connection', end: 'drop' as const },
  ])('ends the stream with an error event and no [DONE] after $name', async ({ end }) => {
    h.emulator.enqueue({ chunks: [chunk([{ text: 'partial' }])], end });
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: h.headers,
      body: JSON.stringify({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    const events = (await res.text()).split('\n\n').filter(Boolean);
    expect(events.some((e) => e.includes('partial'))).toBe(true);
    expect(events.at(-1)).toMatch(/^data: \{"error":\{"message":/);
    expect(events.join('\n')).not.toContain('[DONE]');

    // The official SDK surfaces it as a thrown error, not a short answer.
    h.emulator.enqueue({ chunks: [chunk([{ text: 'partial' }])], end });
    const stream = await h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'x' }], stream: true });
    await expect(async () => {
      for await (const _ of stream) {
        /* drain */
      }
    }).rejects.toThrow();
  });
});
