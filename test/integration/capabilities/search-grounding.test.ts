/**
 * Search grounding (issue 3 item 5; gemini-wire §8.2, §8.4): function `grounding_search` →
 * `googleSearch`, `grounding_search_retrieval` → `googleSearchRetrieval`; the candidate's
 * `groundingMetadata` reaches the client (on the choice) only when strict compliance is off;
 * function tools mixed with grounding are sent as asked and the provider's 400 reaches the client.
 */
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, NON_STRICT, streamedText } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const search: ChatCompletionTool = { type: 'function', function: { name: 'grounding_search' } };
const retrieval: ChatCompletionTool = {
  type: 'function',
  function: { name: 'grounding_search_retrieval', parameters: { dynamic_retrieval_config: { mode: 'MODE_DYNAMIC', dynamicThreshold: 0.7 } } },
};
const question = 'who won euro 2024';
const answer = `Echo: ${question}`;

/** The emulator's grounding metadata for `question` (gemini-wire §8.2 shape). */
const grounding = (legacy: boolean) => ({
  webSearchQueries: [question],
  searchEntryPoint: { renderedContent: `<div class="emulator-search">${question}</div>` },
  groundingChunks: [
    { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/emulator-0', title: 'example.com' } },
    { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/emulator-1', title: 'example.org' } },
  ],
  groundingSupports: [
    { segment: { partIndex: 0, startIndex: 0, endIndex: answer.length, text: answer }, groundingChunkIndices: [0, 1], confidenceScores: [0.97, 0.81] },
  ],
  ...(legacy ? { retrievalMetadata: { googleSearchDynamicRetrievalScore: 0.8 } } : {}),
});

describe('grounding tools', () => {
  it.each([
    { name: 'grounding_search', tool: search, upstream: { googleSearch: {} }, legacy: false },
    {
      name: 'grounding_search_retrieval',
      tool: retrieval,
      upstream: { googleSearchRetrieval: { dynamicRetrievalConfig: { mode: 'MODE_DYNAMIC', dynamicThreshold: 0.7 } } },
      legacy: true,
    },
  ])('$name: sends the grounding tool, and returns groundingMetadata only with strict compliance off', async ({ tool, upstream, legacy }) => {
    const request = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: question }], tools: [tool] };

    const loose = await h.client.chat.completions.create(request, NON_STRICT);
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: [{ role: 'user', parts: [{ text: question }] }], tools: [upstream] });
    expect(loose.choices[0]!.message.content).toBe(answer);
    expect((loose.choices[0] as unknown as Record<string, unknown>).groundingMetadata).toStrictEqual(grounding(legacy));

    const strict = await h.client.chat.completions.create(request);
    expect(h.emulator.requests[1]!.body).toStrictEqual(h.emulator.requests[0]!.body);
    expect(strict.choices[0]!.message.content).toBe(answer);
    expect(strict.choices[0]).not.toHaveProperty('groundingMetadata');
    expect(JSON.stringify(strict)).not.toContain('webSearchQueries');
  });

  it('streams groundingMetadata on the choice of the final chunk only with strict compliance off', async () => {
    const request = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: question }], tools: [search], stream: true as const };
    const loose = await collect(await h.client.chat.completions.create(request, NON_STRICT));
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: [{ role: 'user', parts: [{ text: question }] }], tools: [{ googleSearch: {} }] });
    expect(streamedText(loose)).toBe(answer);
    const withGrounding = loose.filter((c) => c.choices[0] && 'groundingMetadata' in c.choices[0]);
    expect(withGrounding).toHaveLength(1);
    expect((withGrounding[0]!.choices[0] as unknown as Record<string, unknown>).groundingMetadata).toStrictEqual(grounding(false));

    const strict = await collect(await h.client.chat.completions.create(request));
    expect(streamedText(strict)).toBe(answer);
    expect(JSON.stringify(strict)).not.toContain('groundingMetadata');
  });
});

describe('function tools mixed with grounding', () => {
  const weather: ChatCompletionTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };

  it.each([
    { model: 'gemini-2.5-flash', reason: 'Tool use with function calling is unsupported' },
    { model: 'gemini-3-flash-preview', reason: 'Please enable tool_config.include_server_side_tool_invocations to use Built-in tools with Function calling.' },
  ])('$model: sends both tools and relays the provider 400 with its reason', async ({ model, reason }) => {
    for (const stream of [false, true]) {
      h.emulator.reset();
      const err = await apiError(
        h.client.chat.completions.create({ model, messages: [{ role: 'user', content: question }], tools: [weather, search], stream }, NON_STRICT),
      );
      expect(err.status).toBe(400);
      expect(err.message).toContain(reason);
      expect(err.type).toBe('invalid_request_error');
      expect(h.emulator.requests).toHaveLength(1);
      expect(h.emulator.requests[0]!.body).toStrictEqual({
        contents: [{ role: 'user', parts: [{ text: question }] }],
        tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: {} } }] }, { googleSearch: {} }],
      });
    }
  });
});
