/**
 * Request shapes real clients send (issue 15 item 1): every field OpenAI accepts per message role
 * and content part, including what SDKs echo back from an answer's message, is accepted; what
 * Gemini cannot use is dropped with the `ignored_param:…` warning the README lists (asserted on
 * the attempt span), and the exact upstream request the emulator got is asserted.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from '../../src/emulator/index.js';
import { createTelemetry } from '../../src/telemetry/create-telemetry.js';
import { apiError, NON_STRICT } from './capabilities/helpers.js';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
const exporter = new InMemorySpanExporter();
beforeAll(async () => {
  const telemetry = createTelemetry({
    env: { OTEL_METRICS_EXPORTER: 'none' },
    logger: () => {},
    spanProcessorOverride: new SimpleSpanProcessor(exporter),
  });
  h = await startHarness({}, { telemetry });
});
afterAll(() => h.close());
beforeEach(() => {
  h.emulator.reset();
  exporter.reset();
});

const MODEL = 'gemini-2.5-flash';
const png = `data:image/png;base64,${TINY_PNG_BASE64}`;
type Params = OpenAI.ChatCompletionCreateParamsNonStreaming;

/** The `gateway.warnings` of the (only) attempt span. */
function warnings(): string[] {
  const attempts = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT);
  expect(attempts).toHaveLength(1);
  return [...((attempts[0]!.attributes['gateway.warnings'] as string[] | undefined) ?? [])].sort();
}

const upstream = () => h.emulator.requests.at(-1)!.body as Record<string, unknown>;
const weatherCall = { id: 'call_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } };
const weatherTool = { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

describe('client-sent shapes are accepted and translated', () => {
  it("LangChain's tool loop: a tool message with `name` → functionResponse, warning ignored_param:messages.name", async () => {
    await h.client.chat.completions.create({
      model: MODEL,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: '', tool_calls: [weatherCall] },
        { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '{"tempC":18}' },
      ],
    } as Params);
    expect(upstream().contents).toStrictEqual([
      { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { tempC: 18 } } }] },
    ]);
    expect(warnings()).toStrictEqual(['ignored_param:messages.name']);
  });

  it("an SDK's answer message pushed back as is (refusal/annotations/audio/function_call null or empty) → no warning", async () => {
    const first = await h.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    exporter.reset();
    // What the openai SDK hands back, plus the fields an OpenAI answer carries when empty.
    const echoed = { ...first.choices[0]!.message, annotations: [], audio: null, function_call: null } as OpenAI.ChatCompletionMessage;
    await h.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }, echoed, { role: 'user', content: 'and?' }] });
    expect(upstream().contents).toStrictEqual([
      { role: 'user', parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: first.choices[0]!.message.content! }] },
      { role: 'user', parts: [{ text: 'and?' }] },
    ]);
    expect(warnings()).toStrictEqual([]);
  });

  it('an echoed OpenAI answer with refusal, annotations, audio and a name → text kept, each dropped field warned', async () => {
    await h.client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'user', content: 'cite' },
        {
          role: 'assistant',
          name: 'bot',
          content: [
            { type: 'text', text: 'See example.com.' },
            { type: 'refusal', refusal: 'I cannot do the rest.' },
          ],
          refusal: 'I cannot do the rest.',
          annotations: [{ type: 'url_citation', url_citation: { start_index: 4, end_index: 15, title: 'Example', url: 'https://example.com' } }],
          audio: { id: 'audio_1', data: 'AAAA', expires_at: 1, transcript: 'See example.com.' },
        } as OpenAI.ChatCompletionAssistantMessageParam,
        { role: 'user', content: 'thanks' },
      ],
    });
    expect(upstream().contents).toStrictEqual([
      { role: 'user', parts: [{ text: 'cite' }] },
      { role: 'model', parts: [{ text: 'See example.com.' }] },
      { role: 'user', parts: [{ text: 'thanks' }] },
    ]);
    expect(warnings()).toStrictEqual([
      'ignored_param:messages.annotations',
      'ignored_param:messages.audio',
      'ignored_param:messages.name',
      'ignored_param:messages.refusal',
    ]);
  });

  it('legacy function calling (functions, function_call, assistant function_call, role function) → tools, toolConfig, functionCall, functionResponse', async () => {
    await h.client.chat.completions.create({
      model: MODEL,
      functions: [weatherTool.function],
      function_call: { name: 'get_weather' },
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        { role: 'function', name: 'get_weather', content: 'sunny' },
      ],
    });
    expect(upstream()).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Oslo?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: 'sunny' } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weatherTool.function.parameters }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
    });
    expect(warnings()).toStrictEqual([]);
  });

  it('developer and system messages with text parts, and parts with prompt_cache_breakpoint → warnings; image detail → mediaResolution', async () => {
    await h.client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'system', content: 'Answer in English.', name: 'ops' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?', prompt_cache_breakpoint: { mode: 'explicit' } },
            { type: 'image_url', image_url: { url: png, detail: 'low' } },
          ],
        },
      ],
    } as Params);
    expect(upstream()).toStrictEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Answer in English.' }] },
      contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }] }],
      // Gemini 2.5 takes the resolution request-wide (issue 23 row 5).
      generationConfig: { mediaResolution: 'MEDIA_RESOLUTION_LOW' },
    });
    expect(warnings()).toStrictEqual([
      'ignored_param:messages.content.prompt_cache_breakpoint',
      'ignored_param:messages.name',
    ]);
  });

  it('a `file` part: file_data as a data URI, and bare base64 typed by filename → inlineData', async () => {
    await h.client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQK', filename: 'a.pdf' } },
            { type: 'file', file: { file_data: 'JVBERi0xLjUK', filename: 'b.pdf' } },
            { type: 'text', text: 'Compare them.' },
          ],
        },
      ],
    });
    expect(upstream().contents).toStrictEqual([
      {
        role: 'user',
        parts: [
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjQK' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0xLjUK' } },
          { text: 'Compare them.' },
        ],
      },
    ]);
  });

  it('top-level OpenAI hints (prompt_cache_key, safety_identifier, verbosity, include_obfuscation) → accepted with warnings', async () => {
    const stream = await h.client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true, include_obfuscation: false },
      prompt_cache_key: 'k1',
      prompt_cache_retention: '24h',
      safety_identifier: 'user-hash',
      verbosity: 'low',
    });
    for await (const _ of stream) {
      // drain
    }
    expect(warnings()).toStrictEqual([
      'ignored_param:prompt_cache_key',
      'ignored_param:prompt_cache_retention',
      'ignored_param:safety_identifier',
      'ignored_param:stream_options.include_obfuscation',
      'ignored_param:verbosity',
    ]);
  });

  it.each([
    { param: 'logit_bias', value: { '50256': -100 } },
    { param: 'prediction', value: { type: 'content', content: 'x' } },
  ])('$param (no Gemini equivalent) → 400 unsupported_parameter naming it, not "unrecognized"', async ({ param, value }) => {
    const err = await apiError(h.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], [param]: value } as never));
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
    expect(err.code).toBe('unsupported_parameter');
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('multi-turn image edit with the image inside the assistant content', () => {
  it('an image_url part in assistant content → model inlineData in order with the text, with its thought_signature; same upstream request as the content_parts form', async () => {
    const model = 'gemini-3-pro-image-preview';
    const first = await h.client.chat.completions.create(
      { model, messages: [{ role: 'user', content: 'a red cube' }], modalities: ['text', 'image'] } as never,
      NON_STRICT,
    );
    const parts = (first.choices[0]!.message as unknown as { content_parts: Array<{ type: string; thought_signature?: string }> }).content_parts;
    const signature = parts.find((p) => p.type === 'image')!.thought_signature!;
    expect(signature).toBeTruthy();

    const edit = (assistant: Record<string, unknown>) =>
      h.client.chat.completions.create(
        {
          model,
          messages: [{ role: 'user', content: 'a red cube' }, { role: 'assistant', ...assistant }, { role: 'user', content: 'make it blue' }],
          modalities: ['text', 'image'],
        } as never,
        NON_STRICT,
      );
    // As Portkey users send it: the generated image as an image_url part of the assistant's content.
    await edit({
      content: [
        { type: 'text', text: 'Here it is:' },
        { type: 'image_url', image_url: { url: png }, thought_signature: signature },
        { type: 'text', text: 'Done.' },
      ],
    });
    const want = {
      contents: [
        { role: 'user', parts: [{ text: 'a red cube' }] },
        {
          role: 'model',
          parts: [
            { text: 'Here it is:' },
            { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 }, thoughtSignature: signature },
            { text: 'Done.' },
          ],
        },
        { role: 'user', parts: [{ text: 'make it blue' }] },
      ],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'] },
    };
    expect(h.emulator.requests.at(-1)!.body).toStrictEqual(want);

    // The content_parts form of the same turn produces the same upstream request.
    await edit({
      content: 'Here it is:Done.',
      content_parts: [
        { type: 'text', text: 'Here it is:' },
        { type: 'image', image_url: { url: png }, thought_signature: signature },
        { type: 'text', text: 'Done.' },
      ],
    });
    expect(h.emulator.requests.at(-1)!.body).toStrictEqual(want);
  });

  it('without a signature the image part goes back without one', async () => {
    await h.client.chat.completions.create({
      model: 'gemini-2.5-flash-image',
      messages: [
        { role: 'user', content: 'a red cube' },
        { role: 'assistant', content: [{ type: 'image_url', image_url: { url: png } }] },
        { role: 'user', content: 'make it blue' },
      ],
    } as never);
    expect((upstream().contents as unknown[])[1]).toStrictEqual({
      role: 'model',
      parts: [{ inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } }],
    });
  });
});

describe('still refused', () => {
  it('an unknown message field is a 400 naming it', async () => {
    const err = await apiError(
      h.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi', bogus: 1 }] } as never),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe('messages[0].bogus');
  });

  it('a file part with neither file_data nor file_id is a 400 naming it', async () => {
    const err = await apiError(
      h.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'a.pdf' } }] }] }),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe('messages[0].content[0].file');
  });
});
