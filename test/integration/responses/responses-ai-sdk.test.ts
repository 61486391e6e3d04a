/**
 * The Responses API through the Vercel AI SDK (`ai` 6) and its default OpenAI provider
 * (`@ai-sdk/openai` 3: `openai(model)` speaks the Responses API) → gateway → Gemini emulator.
 * Asserts what the SDK returned and the exact request the emulator received.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool, type ModelMessage } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GATEWAY_KEY, PROVIDER_KEY } from '../harness.js';
import { geminiChunk, geminiReply } from '../capabilities/helpers.js';
import { startRoutingHarness, type RoutingHarness } from '../routing/routing-harness.js';

let h: RoutingHarness;
let openai: ReturnType<typeof createOpenAI>;
/** The Responses request bodies the SDK sent, to check what shape it used. */
let sent: Array<Record<string, unknown>> = [];
beforeAll(async () => {
  h = await startRoutingHarness();
  openai = createOpenAI({
    baseURL: `${h.gateway.url}/v1`,
    apiKey: PROVIDER_KEY,
    headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google' },
    fetch: async (url, init) => {
      if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as Record<string, unknown>);
      return fetch(url, init);
    },
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.reset();
  sent = [];
});

describe('@ai-sdk/openai default provider', () => {
  it('generateText', async () => {
    h.emulator.enqueue(geminiReply([{ text: 'Hello from Gemini.' }]));
    const result = await generateText({ model: openai('gemini-2.5-flash'), system: 'Be terse.', prompt: 'Say hello.', temperature: 0.5, maxOutputTokens: 64, maxRetries: 0 });
    expect(result.text).toBe('Hello from Gemini.');
    expect(result.finishReason).toBe('stop');
    expect(result.usage).toMatchObject({ inputTokens: 4, outputTokens: 2, totalTokens: 6 });
    expect(result.providerMetadata?.openai?.responseId).toMatch(/^resp_/);
    expect(h.emulator.requests.map((r) => r.path)).toStrictEqual(['/v1beta/models/gemini-2.5-flash:generateContent']);
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      systemInstruction: { parts: [{ text: 'Be terse.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }],
      generationConfig: { maxOutputTokens: 64, temperature: 0.5 },
    });
  });

  it('streamText', async () => {
    h.emulator.enqueue({ chunks: [geminiChunk([{ text: 'One, ' }]), geminiChunk([{ text: 'two.' }], { finishReason: 'STOP' })] });
    const result = streamText({ model: openai('gemini-2.5-flash'), prompt: 'Count.', maxRetries: 0 });
    const deltas: string[] = [];
    for await (const d of result.textStream) deltas.push(d);
    expect(deltas.join('')).toBe('One, two.');
    expect(await result.finishReason).toBe('stop');
    expect(await result.usage).toMatchObject({ inputTokens: 4, outputTokens: 2 });
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: [{ role: 'user', parts: [{ text: 'Count.' }] }] });
  });

  it('a tool loop on Gemini 3: the call is sent back by call_id and gets its signature from the store', async () => {
    h.emulator.enqueue(
      geminiReply([{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnLW9zbG8=' }], {}, 'gemini-3-flash-preview'),
      geminiReply([{ text: 'Cold in Oslo.' }], {}, 'gemini-3-flash-preview'),
    );
    const calls: string[] = [];
    const result = await generateText({
      model: openai('gemini-3-flash-preview'),
      prompt: 'Weather in Oslo?',
      tools: {
        get_weather: tool({
          description: 'Current weather',
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => {
            calls.push(city);
            return { city, sky: 'snow' };
          },
        }),
      },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(calls).toStrictEqual(['Oslo']);
    expect(result.text).toBe('Cold in Oslo.');
    expect(result.steps).toHaveLength(2);
    // The SDK sends the earlier call without its item id and without any signature.
    expect(sent[1]!.input).toContainEqual({ type: 'function_call', call_id: expect.stringMatching(/^call-/), name: 'get_weather', arguments: '{"city":"Oslo"}' });
    const [first, second] = h.emulator.requests;
    expect(first!.body).toMatchObject({
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'Current weather' }] }],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
    });
    expect((second!.body as { contents: unknown }).contents).toStrictEqual([
      { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'c2lnLW9zbG8=' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { city: 'Oslo', sky: 'snow' } } }] },
    ]);
  });

  it('a multi-turn chat: earlier assistant turns arrive as item_reference and resolve from the store', async () => {
    h.emulator.enqueue(geminiReply([{ text: 'Hi Ada!' }]), geminiReply([{ text: 'You are Ada.' }]));
    const messages: ModelMessage[] = [{ role: 'user', content: 'I am Ada.' }];
    const turn1 = await generateText({ model: openai('gemini-2.5-flash'), messages, maxRetries: 0 });
    messages.push(...turn1.response.messages, { role: 'user', content: 'Who am I?' });
    const turn2 = await generateText({ model: openai('gemini-2.5-flash'), messages, maxRetries: 0 });
    expect(turn2.text).toBe('You are Ada.');
    expect(sent[1]!.input).toStrictEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'I am Ada.' }] },
      { type: 'item_reference', id: expect.stringMatching(/^msg_/) },
      { role: 'user', content: [{ type: 'input_text', text: 'Who am I?' }] },
    ]);
    expect(h.emulator.requests[1]!.body).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'I am Ada.' }] },
        { role: 'model', parts: [{ text: 'Hi Ada!' }] },
        { role: 'user', parts: [{ text: 'Who am I?' }] },
      ],
    });
  });
});
