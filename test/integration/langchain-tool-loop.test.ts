/**
 * LangChain's tool loop through the real gateway (issue 15 item 1): `bindTools` → the model's
 * tool call → `tool.invoke(toolCall)` (a ToolMessage that carries the tool's `name`) → the next
 * turn. With the real `@langchain/openai` client; the exact upstream request of the second turn
 * is asserted.
 */
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GATEWAY_KEY, PROVIDER_KEY, startHarness, type Harness } from './harness.js';
import { geminiReply } from './capabilities/helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const getWeather = tool(async ({ city }: { city: string }) => JSON.stringify({ city, tempC: 18 }), {
  name: 'get_weather',
  description: 'Current weather in a city',
  schema: z.object({ city: z.string() }),
});

describe('LangChain tool loop', () => {
  it('the ToolMessage LangChain builds (with name) is accepted and answers the call by name', async () => {
    const sent: Array<{ messages: Array<Record<string, unknown>> }> = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
      return fetch(input, init);
    };
    const llm = new ChatOpenAI({
      model: 'gemini-2.5-flash',
      apiKey: PROVIDER_KEY,
      maxRetries: 0,
      configuration: {
        baseURL: `${h.gateway.url}/v1`,
        defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'google' },
        fetch: recordingFetch,
      },
    }).bindTools([getWeather]);

    h.emulator.enqueue(geminiReply([{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }]));
    const question = new HumanMessage('Weather in Oslo?');
    const ai = await llm.invoke([question]);
    expect(ai.tool_calls).toHaveLength(1);
    const toolMessage = await getWeather.invoke(ai.tool_calls![0]!);
    expect(toolMessage.name).toBe('get_weather');

    h.emulator.enqueue(geminiReply([{ text: 'It is 18 °C in Oslo.' }]));
    const answer = await llm.invoke([question, ai, toolMessage]);
    expect(answer.content).toBe('It is 18 °C in Oslo.');
    // What LangChain put on the wire: the tool message names its tool (refused before issue 15).
    expect(sent[1]!.messages[2]).toMatchObject({ role: 'tool', name: 'get_weather', tool_call_id: ai.tool_calls![0]!.id });

    const second = h.emulator.requests[1]!.body as { contents: unknown[] };
    expect(second.contents).toStrictEqual([
      { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { city: 'Oslo', tempC: 18 } } }] },
    ]);
  });
});
