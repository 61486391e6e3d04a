import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from './default-answer.js';
import { startEmulator, type Emulator } from './index.js';
import { parseSse, post, userText } from './test-helpers.js';

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());

type Json = Record<string, any>;
const generate = async (model: string, body: unknown): Promise<Json> => {
  const res = await post(`${emu.url}/v1beta/models/${model}:generateContent`, body);
  const json = (await res.json()) as Json;
  if (res.status !== 200) throw new Error(JSON.stringify(json));
  return json;
};
const stream = async (model: string, body: unknown): Promise<Json[]> => {
  const res = await post(`${emu.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`, body);
  return parseSse(await res.text()) as Json[];
};
const partsOf = (chunks: Json[]) => chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);

const tools = [
  {
    functionDeclarations: [
      { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      { name: 'get_time', parametersJsonSchema: { type: 'object', properties: { tz: { type: 'string', enum: ['UTC', 'CET'] } }, required: ['tz'] } },
    ],
  },
];

describe('function calling', () => {
  it('calls the mentioned functions in order of mention, args from JSON after the name or placeholders', async () => {
    const body = await generate('gemini-2.5-flash', userText('use get_time and get_weather {"city":"Paris"}', { tools }));
    expect(body.candidates[0]).toStrictEqual({
      content: {
        parts: [{ functionCall: { name: 'get_time', args: { tz: 'UTC' } } }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
        role: 'model',
      },
      finishReason: 'STOP',
      finishMessage: 'Model generated function call(s).',
      index: 0,
    });
  });

  it('mode ANY calls the allowed function without a mention; NONE never calls', async () => {
    const any = await generate('gemini-2.5-flash', userText('hello', { tools, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } } }));
    expect(any.candidates[0].content.parts).toStrictEqual([{ functionCall: { name: 'get_time', args: { tz: 'UTC' } } }]);
    const none = await generate('gemini-2.5-flash', userText('get_weather', { tools, toolConfig: { functionCallingConfig: { mode: 'NONE' } } }));
    expect(none.candidates[0].content.parts).toStrictEqual([{ text: 'Echo: get_weather' }]);
  });

  it('answers function results with text', async () => {
    const body = await generate('gemini-2.5-flash', {
      tools,
      contents: [
        { role: 'user', parts: [{ text: 'get_weather' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'x' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { tempC: 18 } } }] },
      ],
    });
    expect(body.candidates[0].content.parts).toStrictEqual([{ text: 'Function results: get_weather returned {"tempC":18}' }]);
  });

  it('Gemini 3: signature on the first call only, in streams too, whole calls in one chunk', async () => {
    const chunks = await stream('gemini-3-flash-preview', userText('get_weather and get_time', { tools }));
    const parts = partsOf(chunks);
    expect(parts).toHaveLength(2);
    expect(typeof parts[0].thoughtSignature).toBe('string');
    expect(parts[1].thoughtSignature).toBeUndefined();
    expect(chunks.at(-1)!.candidates[0].finishReason).toBe('STOP');
  });
});

describe('other capabilities', () => {
  it('code execution interleaves executableCode and codeExecutionResult with text', async () => {
    const body = await generate('gemini-2.5-flash', userText('compute', { tools: [{ codeExecution: {} }] }));
    expect(body.candidates[0].content.parts).toStrictEqual([
      { text: 'Let me run some code for that.' },
      { executableCode: { language: 'PYTHON', code: 'print("compute")' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: 'compute\n' } },
      { text: 'Echo: compute' },
    ]);
  });

  it('google search adds groundingMetadata (§8.2 shape), on the last stream chunk', async () => {
    const body = await generate('gemini-2.5-flash', userText('euro 2024 winner', { tools: [{ googleSearch: {} }] }));
    const g = body.candidates[0].groundingMetadata;
    expect(g.webSearchQueries).toStrictEqual(['euro 2024 winner']);
    expect(g.groundingChunks[0].web.uri).toMatch(/^https:\/\/vertexaisearch\.cloud\.google\.com\/grounding-api-redirect\//);
    expect(g.groundingSupports[0].segment).toStrictEqual({ partIndex: 0, startIndex: 0, endIndex: 22, text: 'Echo: euro 2024 winner' });
    const chunks = await stream('gemini-2.5-flash', userText('euro 2024 winner', { tools: [{ google_search_retrieval: {} }] }));
    expect(chunks.at(-1)!.candidates[0].groundingMetadata.retrievalMetadata).toStrictEqual({ googleSearchDynamicRetrievalScore: 0.8 });
    expect(chunks.slice(0, -1).every((c) => c.candidates[0].groundingMetadata === undefined)).toBe(true);
  });

  it('includeThoughts: thought part first, thoughtsTokenCount in the total', async () => {
    const body = await generate('gemini-2.5-flash', userText('hi', { generationConfig: { thinkingConfig: { includeThoughts: true } } }));
    const parts = body.candidates[0].content.parts;
    expect(parts[0]).toStrictEqual({ text: '**Considering the request**\nThe user wrote: hi', thought: true });
    expect(parts[1]).toStrictEqual({ text: 'Echo: hi' });
    const u = body.usageMetadata;
    expect(u.thoughtsTokenCount).toBe(Math.ceil(parts[0].text.length / 4));
    expect(u.totalTokenCount).toBe(u.promptTokenCount + u.candidatesTokenCount + u.thoughtsTokenCount);
    // Thought text is not billed as candidates.
    expect(u.candidatesTokenCount).toBe(2);
  });

  it('thinkingBudget 0 turns thinking off: no thought part and no thought tokens, even with includeThoughts', async () => {
    const body = await generate(
      'gemini-2.5-flash',
      userText('hi', { generationConfig: { thinkingConfig: { thinkingBudget: 0, includeThoughts: true } } }),
    );
    expect(body.candidates[0].content.parts).toStrictEqual([{ text: 'Echo: hi' }]);
    expect(body.usageMetadata.thoughtsTokenCount).toBeUndefined();
  });

  it('Gemini 3 text: signature on the last part; in streams a trailing empty-text chunk', async () => {
    const body = await generate('gemini-3-flash-preview', userText('hello'));
    expect(body.candidates[0].content.parts).toStrictEqual([{ text: 'Echo: hello', thoughtSignature: expect.any(String) }]);
    const chunks = await stream('gemini-3-flash-preview', userText('hello'));
    const last = chunks.at(-1)!.candidates[0];
    expect(last.content.parts).toStrictEqual([{ text: '', thoughtSignature: expect.any(String) }]);
    expect(last.finishReason).toBe('STOP');
  });

  it('IMAGE modality returns a PNG part with IMAGE usage details', async () => {
    const body = await generate('gemini-2.5-flash-image', userText('a cat', { generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }));
    expect(body.candidates[0].content.parts).toStrictEqual([
      { text: 'Echo: a cat' },
      { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } },
    ]);
    expect(body.usageMetadata.candidatesTokensDetails).toStrictEqual([
      { modality: 'TEXT', tokenCount: 3 },
      { modality: 'IMAGE', tokenCount: 1290 },
    ]);
    expect(body.usageMetadata.candidatesTokenCount).toBe(1293);
    expect(Buffer.from(TINY_PNG_BASE64, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });

  it('computer use: open_web_browser on the first turn, then type_text_at', async () => {
    const cu = { tools: [{ computerUse: { environment: 'ENVIRONMENT_BROWSER' } }] };
    const first = await generate('gemini-2.5-computer-use-preview-10-2025', userText('find flights', cu));
    expect(first.candidates[0].content.parts).toStrictEqual([{ functionCall: { name: 'open_web_browser', args: {} } }]);
    const second = await generate('gemini-2.5-computer-use-preview-10-2025', {
      ...cu,
      contents: [
        { role: 'user', parts: [{ text: 'find flights' }] },
        { role: 'model', parts: [{ functionCall: { name: 'open_web_browser', args: {} } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'open_web_browser', response: { url: 'about:blank' }, parts: [{ inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }] } }],
        },
      ],
    });
    expect(second.candidates[0].content.parts[0].functionCall).toStrictEqual({
      name: 'type_text_at',
      args: { x: 500, y: 500, text: 'find flights', press_enter: true, clear_before_typing: true },
    });
  });

  it('maxOutputTokens truncates with MAX_TOKENS; stop sequences cut the text', async () => {
    const long = await generate('gemini-2.5-flash', userText('a b c d e f g h i j k l', { generationConfig: { maxOutputTokens: 2 } }));
    expect(long.candidates[0].finishReason).toBe('MAX_TOKENS');
    expect(long.candidates[0].content.parts[0].text).toBe('Echo: a ');
    const stopped = await generate('gemini-2.5-flash', userText('one two three', { generationConfig: { stopSequences: ['two'] } }));
    expect(stopped.candidates[0].content.parts[0].text).toBe('Echo: one ');
    expect(stopped.candidates[0].finishReason).toBe('STOP');
  });

  it('candidateCount gives one candidate per index; JSON mode answers JSON', async () => {
    const two = await generate('gemini-2.5-flash', userText('hi', { generationConfig: { candidateCount: 2 } }));
    expect(two.candidates.map((c: Json) => c.index)).toStrictEqual([0, 1]);
    const json = await generate('gemini-2.5-flash', userText('hi', { generationConfig: { responseMimeType: 'application/json' } }));
    expect(JSON.parse(json.candidates[0].content.parts[0].text)).toStrictEqual({ echo: 'hi' });
  });

  it('media input counts 258 tokens per part in promptTokensDetails', async () => {
    const body = await generate('gemini-2.5-flash', {
      contents: [{ role: 'user', parts: [{ text: 'what is this' }, { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }] }],
    });
    expect(body.usageMetadata.promptTokensDetails).toStrictEqual([
      { modality: 'TEXT', tokenCount: 3 },
      { modality: 'IMAGE', tokenCount: 258 },
    ]);
    expect(body.candidates[0].content.parts[0].text).toBe('Echo: what is this [inlineData image/png]');
  });
});
