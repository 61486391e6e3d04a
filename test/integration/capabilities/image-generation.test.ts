/**
 * Image generation and editing (issue 3 item 8, DESIGN Decision 9; gemini-wire §10):
 * `modalities` → `responseModalities`; generated images → `message.content_parts` entries of type
 * `image` with the base64 data (strict compliance off), text entries in their order; a multi-turn
 * edit sends the earlier image back as model `inlineData` with its signature, then the new
 * instruction.
 */
import type OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from '../../../src/emulator/index.js';
import { startHarness, type Harness } from '../harness.js';
import { collect, deltas, finishReason, geminiReply, NON_STRICT, streamedText } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const prompt = 'a red cube';
const png = `data:image/png;base64,${TINY_PNG_BASE64}`;
const ask = (model: string, modalities: string[], extra: Record<string, unknown> = {}) =>
  ({ model, messages: [{ role: 'user', content: prompt }], modalities, ...extra }) as never;
type Message = { content: string | null; content_parts?: unknown[] };

describe('image generation', () => {
  it('maps ["text","image"] to responseModalities and returns text and image content_parts in order', async () => {
    const loose = await h.client.chat.completions.create(ask('gemini-2.5-flash-image', ['text', 'image']), NON_STRICT);
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'] },
    });
    const message = loose.choices[0]!.message as unknown as Message;
    expect(message.content).toBe(`Echo: ${prompt}`);
    expect(message.content_parts).toStrictEqual([
      { type: 'text', text: `Echo: ${prompt}` },
      { type: 'image', image_url: { url: png } },
    ]);
    expect(loose.choices[0]!.finish_reason).toBe('stop');

    const strict = await h.client.chat.completions.create(ask('gemini-2.5-flash-image', ['text', 'image']));
    expect(strict.choices[0]!.message.content).toBe(`Echo: ${prompt}`);
    expect(JSON.stringify(strict)).not.toContain('content_parts');
    expect(JSON.stringify(strict)).not.toContain(TINY_PNG_BASE64);
  });

  it('maps ["image"] to IMAGE only and returns the image with its signature (Gemini 3 image model)', async () => {
    const loose = await h.client.chat.completions.create(ask('gemini-3-pro-image-preview', ['image']), NON_STRICT);
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [{ role: 'user', parts: [{ text: prompt }] }],
      generationConfig: { responseModalities: ['IMAGE'] },
    });
    const message = loose.choices[0]!.message as unknown as Message;
    expect(message.content).toBeNull();
    expect(message.content_parts).toStrictEqual([
      { type: 'image', image_url: { url: png }, thought_signature: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) },
    ]);
  });

  it('keeps text and several images interleaved in their order', async () => {
    h.emulator.enqueue(
      geminiReply(
        [
          { text: 'First:' },
          { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } },
          { text: 'Second:' },
          { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } },
        ],
        {},
        'gemini-2.5-flash-image',
      ),
    );
    const loose = await h.client.chat.completions.create(ask('gemini-2.5-flash-image', ['text', 'image']), NON_STRICT);
    const message = loose.choices[0]!.message as unknown as Message;
    expect(message.content).toBe('First:Second:');
    expect(message.content_parts).toStrictEqual([
      { type: 'text', text: 'First:' },
      { type: 'image', image_url: { url: png } },
      { type: 'text', text: 'Second:' },
      { type: 'image', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
    ]);
  });

  it('streams the image as a delta.content_parts entry', async () => {
    const chunks = await collect(await h.client.chat.completions.create(ask('gemini-2.5-flash-image', ['text', 'image'], { stream: true }), NON_STRICT));
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash-image:streamGenerateContent?alt=sse');
    expect(streamedText(chunks)).toBe(`Echo: ${prompt}`);
    // Accumulated, the streamed entries are the whole answer in order: the text, then the image.
    const entries = deltas(chunks).flatMap((d) => (d.content_parts as Array<{ type: string; text?: string }> | undefined) ?? []);
    expect(entries.at(-1)).toStrictEqual({ type: 'image', image_url: { url: png } });
    expect(entries.slice(0, -1).every((e) => e.type === 'text')).toBe(true);
    expect(entries.slice(0, -1).map((e) => e.text).join('')).toBe(`Echo: ${prompt}`);
    expect(finishReason(chunks)).toBe('stop');
  });
});

describe('image editing', () => {
  it('sends the earlier image back as model inlineData with its signature, then the new instruction', async () => {
    const model = 'gemini-3-pro-image-preview';
    const first = await h.client.chat.completions.create(ask(model, ['text', 'image']), NON_STRICT);
    const previous = first.choices[0]!.message as unknown as Message;
    const image = previous.content_parts!.find((p) => (p as { type: string }).type === 'image') as { thought_signature: string };
    expect(image.thought_signature).toBeTruthy();

    const edited = await h.client.chat.completions.create(
      {
        model,
        messages: [
          { role: 'user', content: prompt },
          { role: 'assistant', content: previous.content, content_parts: previous.content_parts } as OpenAI.ChatCompletionMessageParam,
          { role: 'user', content: 'make it blue' },
        ],
        modalities: ['text', 'image'],
      } as never,
      NON_STRICT,
    );
    expect(h.emulator.requests[1]!.body).toStrictEqual({
      contents: [
        { role: 'user', parts: [{ text: prompt }] },
        {
          role: 'model',
          parts: [
            { text: `Echo: ${prompt}` },
            { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 }, thoughtSignature: image.thought_signature },
          ],
        },
        { role: 'user', parts: [{ text: 'make it blue' }] },
      ],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'] },
    });
    const message = edited.choices[0]!.message as unknown as Message;
    expect(message.content).toBe('Echo: make it blue');
    expect(message.content_parts?.map((p) => (p as { type: string }).type)).toStrictEqual(['text', 'image']);
  });
});
