/**
 * Function calling (issue 3 item 1) through the official `openai` SDK → gateway → Gemini emulator:
 * tools → `functionDeclarations` (`parametersJsonSchema`), tool_choice → `functionCallingConfig`,
 * `functionCall` parts → `tool_calls`, streaming, and the continuation turn.
 */
import OpenAI from 'openai';
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError, CALL_ID, collect, toolCalls, deltas, finishReason, geminiChunk, geminiReply, streamedText } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const weather: ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: {
      type: 'object',
      properties: {
        city: { type: 'string' },
        unit: { type: ['string', 'null'], enum: ['c', 'f', null] },
        kind: { const: 'current' },
        where: { $ref: '#/$defs/place' },
      },
      required: ['city'],
      additionalProperties: false,
      $defs: { place: { type: 'object', properties: { lat: { type: 'number' } } } },
    },
  },
};
const time: ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] } },
};

/** What Gemini gets for `weather`: `type` arrays → anyOf, `const` → one-value enum, the rest as written. */
const weatherDeclaration = {
  name: 'get_weather',
  description: 'Current weather in a city',
  parametersJsonSchema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { enum: ['c', 'f', null], anyOf: [{ type: 'string' }, { type: 'null' }] },
      kind: { enum: ['current'] },
      where: { $ref: '#/$defs/place' },
    },
    required: ['city'],
    additionalProperties: false,
    $defs: { place: { type: 'object', properties: { lat: { type: 'number' } } } },
  },
};
const timeDeclaration = {
  name: 'get_time',
  parametersJsonSchema: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] },
};

describe('function declarations', () => {
  it('sends tools as functionDeclarations with parametersJsonSchema and answers the call as tool_calls', async () => {
    const completion = await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Call get_weather {"city":"Paris"} please' }],
      tools: [weather, time],
    });

    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [{ role: 'user', parts: [{ text: 'Call get_weather {"city":"Paris"} please' }] }],
      tools: [{ functionDeclarations: [weatherDeclaration, timeDeclaration] }],
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = toolCalls(choice.message)[0]!;
    expect(call.id).toMatch(CALL_ID);
    expect(call).toStrictEqual({ id: call.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
  });

  it.each([
    { keyword: 'allOf', parameters: { type: 'object', allOf: [{ required: ['a'] }, { required: ['b'] }] }, at: '#/allOf' },
    { keyword: 'not', parameters: { type: 'object', properties: { a: { not: { type: 'string' } } } }, at: '#/properties/a/not' },
    { keyword: 'if', parameters: { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } }, at: '#/if' },
  ])('refuses a schema Gemini cannot express ($keyword) with a 400 naming the tool', async ({ keyword, parameters, at }) => {
    const err = await apiError(
      h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [time, { type: 'function', function: { name: 'book_trip', parameters } }],
      }),
    );
    expect(err.status).toBe(400);
    expect(err.message).toContain('tool book_trip');
    expect(err.message).toContain(`${keyword} (at ${at})`);
    expect(err.param).toBe('tools[1].function.parameters');
    expect(err.code).toBe('unsupported_schema');
    expect(err.type).toBe('invalid_request_error');
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('tool_choice', () => {
  it.each([
    { choice: 'auto' as const, config: { mode: 'AUTO' }, calls: [] as string[], content: 'Echo: what time is it?' },
    { choice: 'none' as const, config: { mode: 'NONE' }, calls: [], content: 'Echo: what time is it?' },
    { choice: 'required' as const, config: { mode: 'ANY' }, calls: ['get_weather'], content: null },
    {
      choice: { type: 'function' as const, function: { name: 'get_time' } },
      config: { mode: 'ANY', allowedFunctionNames: ['get_time'] },
      calls: ['get_time'],
      content: null,
    },
  ])('maps $choice to functionCallingConfig $config.mode', async ({ choice, config, calls, content }) => {
    const completion = await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'what time is it?' }],
      tools: [weather, time],
      tool_choice: choice,
    });
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [{ role: 'user', parts: [{ text: 'what time is it?' }] }],
      tools: [{ functionDeclarations: [weatherDeclaration, timeDeclaration] }],
      toolConfig: { functionCallingConfig: config },
    });
    const message = completion.choices[0]!.message;
    expect(toolCalls(message).map((c) => c.function.name)).toStrictEqual(calls);
    expect(message.content).toBe(content);
    expect(completion.choices[0]!.finish_reason).toBe(calls.length > 0 ? 'tool_calls' : 'stop');
  });

  it('refuses a named tool_choice that names no declared function', async () => {
    const err = await apiError(
      h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'x' }],
        tools: [time],
        tool_choice: { type: 'function', function: { name: 'nope' } },
      }),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe('tool_choice.function.name');
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('function calls in the answer', () => {
  it('keeps parallel calls in order, each with its own call-<uuid> id and JSON-string arguments', async () => {
    h.emulator.enqueue(
      geminiReply(
        [
          { text: 'Checking both.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris', nested: { deep: [1, 2] } } } },
          { functionCall: { name: 'get_time', args: { tz: 'Europe/Paris' } } },
          { functionCall: { name: 'get_weather', args: { city: 'London' } } },
        ],
        { finishMessage: 'Model generated function call(s).' },
      ),
    );
    const completion = await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'Paris and London' }],
      tools: [weather, time],
    });
    const message = completion.choices[0]!.message;
    expect(message.content).toBe('Checking both.');
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    const calls = toolCalls(message);
    expect(calls.map((c) => [c.type, c.function.name, c.function.arguments])).toStrictEqual([
      ['function', 'get_weather', '{"city":"Paris","nested":{"deep":[1,2]}}'],
      ['function', 'get_time', '{"tz":"Europe/Paris"}'],
      ['function', 'get_weather', '{"city":"London"}'],
    ]);
    for (const c of calls) expect(c.id).toMatch(CALL_ID);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
  });

  it('streams calls as whole tool_calls deltas, keeping a call that shares its chunk with text', async () => {
    h.emulator.enqueue({
      chunks: [
        geminiChunk([{ text: 'Let me ' }]),
        geminiChunk([{ text: 'check.' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } } }]),
        geminiChunk([{ functionCall: { name: 'get_time', args: { tz: 'UTC' } } }], { finishReason: 'STOP' }),
      ],
    });
    const chunks = await collect(
      await h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: 'weather and time' }],
        tools: [weather, time],
        stream: true,
      }),
    );
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [{ role: 'user', parts: [{ text: 'weather and time' }] }],
      tools: [{ functionDeclarations: [weatherDeclaration, timeDeclaration] }],
    });
    expect(streamedText(chunks)).toBe('Let me check.');
    const toolDeltas = deltas(chunks).flatMap((d) => d.tool_calls ?? []);
    expect(toolDeltas.map((t) => [t.index, t.type, t.function?.name, t.function?.arguments])).toStrictEqual([
      [0, 'function', 'get_weather', '{"city":"Paris"}'],
      [1, 'function', 'get_time', '{"tz":"UTC"}'],
    ]);
    for (const t of toolDeltas) expect(t.id).toMatch(CALL_ID);
    // The call arrived in the same delta as the text it followed.
    const mixed = deltas(chunks).find((d) => d.content === 'check.');
    expect(mixed?.tool_calls?.[0]?.function?.name).toBe('get_weather');
    expect(finishReason(chunks)).toBe('tool_calls');

    // The SDK's own accumulator rebuilds the same message.
    h.emulator.enqueue({
      chunks: [
        geminiChunk([{ text: 'ok' }, { functionCall: { name: 'get_time', args: { tz: 'UTC' } } }], { finishReason: 'STOP' }),
      ],
    });
    const runner = h.client.chat.completions.stream({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'time' }],
      tools: [time],
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('ok');
    expect(toolCalls(final.choices[0]!.message).map((c) => [c.function.name, c.function.arguments])).toStrictEqual([['get_time', '{"tz":"UTC"}']]);
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
  });
});

describe('continuation', () => {
  const history = (answers: Array<{ id: string; content: string }>): OpenAI.ChatCompletionMessageParam[] => [
    { role: 'user', content: 'Paris and London' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call-a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call-b', type: 'function', function: { name: 'get_time', arguments: '{"tz":"UTC"}' } },
      ],
    },
    ...answers.map((a) => ({ role: 'tool' as const, tool_call_id: a.id, content: a.content })),
  ];

  it('sends assistant tool_calls as functionCall parts and tool messages as functionResponse named by tool_call_id', async () => {
    const completion = await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      // Answered out of order: the name comes from the id, not from the position.
      messages: history([
        { id: 'call-b', content: 'It is 12:00' },
        { id: 'call-a', content: '{"tempC": 18, "sky": "clear"}' },
      ]),
      tools: [weather, time],
    });
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Paris and London' }] },
        {
          role: 'model',
          parts: [
            { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
            { functionCall: { name: 'get_time', args: { tz: 'UTC' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'get_time', response: { content: 'It is 12:00' } } },
            { functionResponse: { name: 'get_weather', response: { tempC: 18, sky: 'clear' } } },
          ],
        },
      ],
      tools: [{ functionDeclarations: [weatherDeclaration, timeDeclaration] }],
    });
    expect(completion.choices[0]!.message.content).toBe(
      'Function results: get_time returned {"content":"It is 12:00"}; get_weather returned {"tempC":18,"sky":"clear"}',
    );
    expect(completion.choices[0]!.finish_reason).toBe('stop');
  });

  it('refuses a tool message whose tool_call_id no assistant call has', async () => {
    const err = await apiError(
      h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: history([
          { id: 'call-a', content: '{}' },
          { id: 'call-zzz', content: 'x' },
        ]),
        tools: [weather, time],
      }),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe('messages[3].tool_call_id');
    expect(err.code).toBe('unknown_tool_call_id');
    expect(err.message).toContain('"call-zzz"');
    expect(h.emulator.requests).toHaveLength(0);
  });
});
