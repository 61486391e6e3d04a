/**
 * The provider against the project's Gemini emulator (written from the wire reference alone, so
 * a misunderstanding in the translation shows up as a 400 from its strict request parser).
 * Imports the emulator in tests only; production code never does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import type { ChatCompletionRequest } from '../../openai/chat-request.js';
import type { ChatCompletionChunk } from '../../openai/chat-response.js';
import type { ProviderCall } from '../provider.js';
import { createGeminiProvider, type GeminiProvider } from './gemini-provider.js';

let emulator: Emulator;
let provider: GeminiProvider;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  provider = createGeminiProvider();
});
afterAll(async () => {
  await provider.close();
  await emulator.close();
});
beforeEach(() => emulator.reset());

function call(request: Partial<ChatCompletionRequest>, strictCompliance = true, model = 'gemini-2.5-flash'): ProviderCall {
  return {
    request: { model, messages: [{ role: 'user', content: 'Hello there' }], ...request },
    target: { provider: 'google', apiKey: 'emulator-key', baseUrl: emulator.url, strictCompliance, timeoutMs: 5_000 },
    signal: new AbortController().signal,
    traceHeaders: {},
  };
}

describe('gemini provider × emulator', () => {
  it('plain text', async () => {
    const { completion } = await provider.chat(call({}));
    expect(completion.choices[0]!.message.content).toStrictEqual('Echo: Hello there');
    expect(completion.choices[0]!.finish_reason).toStrictEqual('stop');
  });

  it('streaming with usage', async () => {
    const result = await provider.chatStream(call({ stream: true, stream_options: { include_usage: true } }));
    const chunks: ChatCompletionChunk[] = [];
    for await (const c of result.chunks) chunks.push(c);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toStrictEqual('Echo: Hello there');
    expect(chunks.at(-1)!.choices).toStrictEqual([]);
    expect(chunks.at(-1)!.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('function calling round trip', async () => {
    const tools: ChatCompletionRequest['tools'] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
        },
      },
    ];
    const first = await provider.chat(call({ tools, messages: [{ role: 'user', content: 'get_weather {"city":"Paris"}' }] }));
    const message = first.completion.choices[0]!.message;
    expect(first.completion.choices[0]!.finish_reason).toStrictEqual('tool_calls');
    expect(message.tool_calls![0]!.function).toStrictEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(message.tool_calls![0]!.id).toMatch(/^call-[0-9a-f-]{36}$/);

    const second = await provider.chat(
      call({
        tools,
        messages: [
          { role: 'user', content: 'get_weather {"city":"Paris"}' },
          { role: 'assistant', content: message.content, tool_calls: message.tool_calls! },
          { role: 'tool', tool_call_id: message.tool_calls![0]!.id, content: '{"tempC":18}' },
        ],
      }),
    );
    expect(second.completion.choices[0]!.message.content).toStrictEqual('Function results: get_weather returned {"tempC":18}');
  });

  it('code execution and thinking with strict compliance off', async () => {
    const { completion } = await provider.chat(
      call(
        {
          tools: [{ type: 'code_execution' }],
          thinking: { type: 'enabled', budget_tokens: 512 },
          messages: [{ role: 'user', content: 'Compute 2+2' }],
        },
        false,
      ),
    );
    const message = completion.choices[0]!.message;
    expect(message.content?.includes('```')).toStrictEqual(true);
    expect(message.content_parts?.some((p) => p.type === 'executable_code')).toStrictEqual(true);
    expect(message.content_blocks?.[0]?.type).toStrictEqual('thinking');
  });

  it('search grounding: metadata only when strict off; mixing with functions gets the provider 400', async () => {
    const grounding = { type: 'function' as const, function: { name: 'grounding_search' } };
    const loose = await provider.chat(call({ tools: [grounding] }, false));
    expect(loose.completion.choices[0]!.groundingMetadata).toBeDefined();
    const strict = await provider.chat(call({ tools: [grounding] }, true));
    expect('groundingMetadata' in strict.completion.choices[0]!).toStrictEqual(false);

    let err: unknown;
    try {
      await provider.chat(call({ tools: [grounding, { type: 'function', function: { name: 'f' } }] }));
    } catch (e) {
      err = e;
    }
    expect((err as { status?: number }).status).toStrictEqual(400);
    expect((emulator.requests.at(-1)!.body as { tools: unknown }).tools).toStrictEqual([
      { functionDeclarations: [{ name: 'f' }] },
      { googleSearch: {} },
    ]);
  });

  it('computer use on Gemini 3: signed action, then the screenshot as a function response', async () => {
    const computer = {
      type: 'function' as const,
      function: { name: 'computer_use', parameters: { environment: 'ENVIRONMENT_BROWSER' } },
    };
    const model = 'gemini-3-flash-preview';
    const first = await provider.chat(call({ tools: [computer], messages: [{ role: 'user', content: 'Find flights' }] }, false, model));
    const message = first.completion.choices[0]!.message;
    expect(message.tool_calls?.[0]?.function.name).toStrictEqual('open_web_browser');
    expect(typeof message.tool_calls?.[0]?.function.thought_signature).toStrictEqual('string');

    const png = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const second = await provider.chat(
      call(
        {
          tools: [computer],
          messages: [
            { role: 'user', content: 'Find flights' },
            { role: 'assistant', content: message.content, tool_calls: message.tool_calls! },
            { role: 'user', content: [{ type: 'text', text: '{"url":"https://www.google.com"}' }, { type: 'image_url', image_url: { url: png } }] },
          ],
        },
        false,
        model,
      ),
    );
    expect(second.completion.choices[0]!.finish_reason).toBeDefined();
    const sent = emulator.requests.at(-1)!.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
    expect(sent.contents[1]!.parts[0]!.thoughtSignature).toStrictEqual(message.tool_calls![0]!.function.thought_signature);
    expect(sent.contents[2]).toStrictEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            name: 'open_web_browser',
            response: { url: 'https://www.google.com' },
            parts: [{ inlineData: { mimeType: 'image/png', data: png.slice('data:image/png;base64,'.length) } }],
          },
        },
      ],
    });
  });

  it('image generation → content_parts image', async () => {
    const { completion } = await provider.chat(call({ modalities: ['text', 'image'] }, false, 'gemini-2.5-flash-image'));
    expect(completion.choices[0]!.message.content_parts?.some((p) => p.type === 'image')).toStrictEqual(true);
  });
});

describe('gemini provider × emulator: embeddings and models', () => {
  const target = () => ({ provider: 'google' as const, apiKey: 'emulator-key', baseUrl: emulator.url, strictCompliance: true, timeoutMs: 5_000 });

  it('embeds 205 inputs in three batchEmbedContents calls, sent as the emulator expects', async () => {
    const input = Array.from({ length: 205 }, (_, i) => `text number ${i}`);
    const { response, outcome } = await provider.embed({
      request: { model: 'gemini-embedding-001', input, dimensions: 16 },
      target: target(),
      signal: new AbortController().signal,
      traceHeaders: { traceparent: '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01' },
    });
    expect(response.data).toHaveLength(205);
    expect(response.data.map((d) => d.index)).toStrictEqual(input.map((_, i) => i));
    expect((response.data[0]!.embedding as number[]).length).toBe(16);
    const calls = emulator.requests.filter((r) => r.rpc === 'batchEmbedContents');
    expect(calls.map((c) => (c.body as { requests: unknown[] }).requests.length)).toStrictEqual([100, 100, 5]);
    expect(calls[0]!.headers.traceparent).toBe('00-0123456789abcdef0123456789abcdef-0123456789abcdef-01');
    expect(calls[0]!.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(response.usage.prompt_tokens).toBeGreaterThan(0);
    expect(outcome.usage?.inputTokens).toBe(response.usage.prompt_tokens);
  });

  it('maps an upstream 404 (a chat model asked to embed) to an UpstreamError', async () => {
    await expect(
      provider.embed({ request: { model: 'gemini-2.5-flash', input: 'x' }, target: target(), signal: new AbortController().signal, traceHeaders: {} }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('lists chat and embedding models', async () => {
    const models = await provider.listModels(target(), new AbortController().signal);
    expect(models).toContainEqual({ id: 'gemini-2.5-flash', ownedBy: 'google', capabilities: ['chat'] });
    expect(models).toContainEqual({ id: 'gemini-embedding-001', ownedBy: 'google', capabilities: ['embeddings'] });
  });
});
