/**
 * Thought signatures (issue 3 item 7; gemini-wire §6): with strict compliance off a part's
 * `thoughtSignature` → `tool_calls[i].function.thought_signature` (and `thought_signature` of a
 * text answer); in the next turn it goes back unchanged on the matching `functionCall` part. The
 * gateway never invents, reorders or drops one; a Gemini 3 request missing one gets the
 * provider's 400 message.
 */
import type OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, deltas, geminiReply, NON_STRICT, streamedText, toolCalls } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const MODEL = 'gemini-3-flash-preview';
const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
];
const declarations = [
  { name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'get_time', parametersJsonSchema: { type: 'object', properties: { tz: { type: 'string' } } } },
];
const question = 'get_weather {"city":"Paris"} and get_time {"tz":"CET"}';
const user: OpenAI.ChatCompletionMessageParam = { role: 'user', content: question };

const sig = (s: string) => Buffer.from(s).toString('base64');

describe('function-call signatures', () => {
  it('returns the signature on the call that had it, and none on the others', async () => {
    const loose = await h.client.chat.completions.create({ model: MODEL, messages: [user], tools }, NON_STRICT);
    const calls = toolCalls(loose.choices[0]!.message);
    expect(calls.map((c) => c.function.name)).toStrictEqual(['get_weather', 'get_time']);
    // The emulator, like Gemini, signs only the first of parallel calls (gemini-wire §5).
    expect(calls[0]!.function.thought_signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(calls[1]!.function).not.toHaveProperty('thought_signature');

    const strict = await h.client.chat.completions.create({ model: MODEL, messages: [user], tools });
    expect(JSON.stringify(strict)).not.toContain('thought_signature');
  });

  it('sends signatures back unchanged on the matching functionCall parts, inventing none', async () => {
    const first = await h.client.chat.completions.create({ model: MODEL, messages: [user], tools }, NON_STRICT);
    const calls = toolCalls(first.choices[0]!.message);
    const second = await h.client.chat.completions.create(
      {
        model: MODEL,
        messages: [
          user,
          { role: 'assistant', content: null, tool_calls: calls } as OpenAI.ChatCompletionMessageParam,
          { role: 'tool', tool_call_id: calls[0]!.id, content: '{"tempC":18}' },
          { role: 'tool', tool_call_id: calls[1]!.id, content: '{"time":"12:00"}' },
        ],
        tools,
      },
      NON_STRICT,
    );
    expect(h.emulator.requests[1]!.body).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: question }] },
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: calls[0]!.function.thought_signature },
            { functionCall: { name: 'get_time', args: { tz: 'CET' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_weather', response: { tempC: 18 } } },
            { functionResponse: { name: 'get_time', response: { time: '12:00' } } },
          ],
        },
      ],
      tools: [{ functionDeclarations: declarations }],
    });
    expect(second.choices[0]!.message.content).toBe('Function results: get_weather returned {"tempC":18}; get_time returned {"time":"12:00"}');
  });

  it('keeps several signatures on their own calls, in order', async () => {
    h.emulator.enqueue(
      geminiReply(
        [
          { functionCall: { name: 'get_time', args: { tz: 'UTC' } }, thoughtSignature: sig('first') },
          { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
          { functionCall: { name: 'get_time', args: { tz: 'JST' } }, thoughtSignature: sig('third') },
        ],
        {},
        MODEL,
      ),
    );
    const loose = await h.client.chat.completions.create({ model: MODEL, messages: [user], tools }, NON_STRICT);
    const calls = toolCalls(loose.choices[0]!.message);
    expect(calls.map((c) => [c.function.name, c.function.thought_signature])).toStrictEqual([
      ['get_time', sig('first')],
      ['get_weather', undefined],
      ['get_time', sig('third')],
    ]);
    await h.client.chat.completions.create(
      {
        model: MODEL,
        messages: [
          user,
          { role: 'assistant', content: null, tool_calls: calls } as OpenAI.ChatCompletionMessageParam,
          ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: 'ok' })),
        ],
        tools,
      },
      NON_STRICT,
    );
    const model = (h.emulator.requests[1]!.body as { contents: Array<{ parts: unknown[] }> }).contents[1]!;
    expect(model.parts).toStrictEqual([
      { functionCall: { name: 'get_time', args: { tz: 'UTC' } }, thoughtSignature: sig('first') },
      { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
      { functionCall: { name: 'get_time', args: { tz: 'JST' } }, thoughtSignature: sig('third') },
    ]);
  });

  it('streams the signature on its tool_calls delta', async () => {
    const chunks = await collect(await h.client.chat.completions.create({ model: MODEL, messages: [user], tools, stream: true }, NON_STRICT));
    const calls = deltas(chunks).flatMap((d) => d.tool_calls ?? []) as Array<{ function: { name: string; thought_signature?: string } }>;
    expect(calls.map((c) => c.function.name)).toStrictEqual(['get_weather', 'get_time']);
    expect(calls[0]!.function.thought_signature).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(calls[1]!.function).not.toHaveProperty('thought_signature');
  });

  it('relays the provider 400 when a Gemini 3 history lacks the signature (the gateway invents none)', async () => {
    const err = await apiError(
      h.client.chat.completions.create(
        {
          model: MODEL,
          messages: [
            user,
            { role: 'assistant', content: null, tool_calls: [{ id: 'call-x', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
            { role: 'tool', tool_call_id: 'call-x', content: '{"tempC":18}' },
          ],
          tools,
        },
        NON_STRICT,
      ),
    );
    expect(err.status).toBe(400);
    expect(err.message).toContain(
      'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:get_weather` , position 2.',
    );
    const model = (h.emulator.requests[0]!.body as { contents: Array<{ parts: unknown[] }> }).contents[1]!;
    expect(model.parts).toStrictEqual([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }]);
  });
});

describe('text-answer signatures', () => {
  it('returns a text answer signature as message.thought_signature and sends it back on the last text part', async () => {
    const first = await h.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] }, NON_STRICT);
    const message = first.choices[0]!.message as unknown as { content: string; thought_signature?: string };
    expect(message.content).toBe('Echo: hello');
    expect(message.thought_signature).toMatch(/^[A-Za-z0-9+/]+=*$/);

    await h.client.chat.completions.create(
      {
        model: MODEL,
        messages: [
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: message.content, thought_signature: message.thought_signature } as OpenAI.ChatCompletionMessageParam,
          { role: 'user', content: 'again' },
        ],
      },
      NON_STRICT,
    );
    expect(h.emulator.requests[1]!.body).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'hello' }] },
        { role: 'model', parts: [{ text: 'Echo: hello', thoughtSignature: message.thought_signature }] },
        { role: 'user', parts: [{ text: 'again' }] },
      ],
    });
  });

  it('streams a signature that arrives after the text (trailing chunk) as delta.thought_signature', async () => {
    const chunks = await collect(await h.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], stream: true }, NON_STRICT));
    expect(streamedText(chunks)).toBe('Echo: hello');
    const signed = deltas(chunks).filter((d) => d.thought_signature !== undefined);
    expect(signed).toHaveLength(1);
    expect(signed[0]!.thought_signature).toMatch(/^[A-Za-z0-9+/]+=*$/);

    const strict = await collect(await h.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], stream: true }));
    expect(streamedText(strict)).toBe('Echo: hello');
    expect(JSON.stringify(strict)).not.toContain('thought_signature');
  });
});
