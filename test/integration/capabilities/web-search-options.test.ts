/**
 * OpenAI's `web_search_options` → Gemini `googleSearch` (issue 23 row 2; docs/gemini-fields.md):
 * the exact upstream request, `url_citation` annotations on the message in strict and non-strict
 * mode (OpenAI defines them), streamed as `delta.annotations`, grounding metadata only
 * non-strict; Gemini's UTF-8 byte offsets become UTF-16 positions in `content`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, deltas, NON_STRICT, streamedText } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const question = 'who won euro 2024';
const answer = `Echo: ${question}`;
const upstream = { contents: [{ role: 'user', parts: [{ text: question }] }], tools: [{ googleSearch: {} }] };
/** The emulator cites its whole answer part with two web chunks (src/emulator/default-answer.ts). */
const citations = [0, 1].map((n) => ({
  type: 'url_citation',
  url_citation: {
    start_index: 0,
    end_index: answer.length,
    url: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/emulator-${n}`,
    title: n === 0 ? 'example.com' : 'example.org',
  },
}));
const request = {
  model: 'gemini-2.5-flash',
  messages: [{ role: 'user' as const, content: question }],
  web_search_options: { search_context_size: 'low' as const, user_location: { type: 'approximate' as const, approximate: { city: 'Berlin', country: 'DE' } } },
};

describe('web_search_options', () => {
  it('sends googleSearch and answers url_citation annotations in strict and non-strict mode', async () => {
    const strict = await h.client.chat.completions.create(request);
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
    expect(strict.choices[0]!.message.content).toBe(answer);
    expect(strict.choices[0]!.message.annotations).toStrictEqual(citations);
    expect(strict.choices[0]).not.toHaveProperty('groundingMetadata');

    const loose = await h.client.chat.completions.create(request, NON_STRICT);
    expect(h.emulator.requests[1]!.body).toStrictEqual(upstream);
    expect(loose.choices[0]!.message.annotations).toStrictEqual(citations);
    expect((loose.choices[0] as unknown as Record<string, unknown>).groundingMetadata).toMatchObject({ webSearchQueries: [question] });
  });

  it('streams the annotations as delta.annotations on the chunk that carried the grounding', async () => {
    for (const options of [undefined, NON_STRICT]) {
      h.emulator.reset();
      const chunks = await collect(await h.client.chat.completions.create({ ...request, stream: true }, options));
      expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
      expect(streamedText(chunks)).toBe(answer);
      const withCitations = deltas(chunks).filter((d) => d.annotations !== undefined);
      expect(withCitations).toHaveLength(1);
      expect(withCitations[0]!.annotations).toStrictEqual(citations);
      expect(JSON.stringify(chunks).includes('groundingMetadata')).toBe(options !== undefined);
    }
  });

  it('turns byte offsets into character positions of content (non-ASCII text, a second part)', async () => {
    const first = 'Ça marche — ';
    const second = 'l’Espagne a gagné.';
    const grounding = {
      groundingChunks: [{ web: { uri: 'https://r/1', title: 'uefa.com' } }],
      groundingSupports: [
        { segment: { partIndex: 1, startIndex: Buffer.byteLength('l’Espagne '), endIndex: Buffer.byteLength(second), text: 'a gagné.' }, groundingChunkIndices: [0] },
      ],
    };
    const reply = {
      candidates: [{ content: { role: 'model', parts: [{ text: first }, { text: second }] }, finishReason: 'STOP', index: 0, groundingMetadata: grounding }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
      modelVersion: 'gemini-2.5-flash',
    };
    h.emulator.enqueue({ status: 200, body: reply });
    const out = await h.client.chat.completions.create(request);
    const content = out.choices[0]!.message.content!;
    const [annotation] = out.choices[0]!.message.annotations!;
    expect(content.slice(annotation!.url_citation.start_index, annotation!.url_citation.end_index)).toBe('a gagné.');

    h.emulator.enqueue({
      chunks: [
        { data: { ...reply, candidates: [{ content: { role: 'model', parts: [{ text: first }] }, index: 0 }] } },
        { data: { ...reply, candidates: [{ content: { role: 'model', parts: [{ text: 'l’Espagne ' }] }, index: 0 }] } },
        { data: { ...reply, candidates: [{ content: { role: 'model', parts: [{ text: 'a gagné.' }] }, index: 0, finishReason: 'STOP', groundingMetadata: { ...grounding, groundingSupports: [{ ...grounding.groundingSupports[0], segment: { ...grounding.groundingSupports[0]!.segment, partIndex: 0, startIndex: Buffer.byteLength(first + 'l’Espagne '), endIndex: Buffer.byteLength(first + second) } }] } }] } },
      ],
    });
    const chunks = await collect(await h.client.chat.completions.create({ ...request, stream: true }));
    const streamed = streamedText(chunks);
    const cited = deltas(chunks).find((d) => d.annotations)!.annotations as Array<{ url_citation: { start_index: number; end_index: number } }>;
    expect(streamed.slice(cited[0]!.url_citation.start_index, cited[0]!.url_citation.end_index)).toBe('a gagné.');
  });

  it('a model without Google Search → 400 unsupported_parameter naming the model, nothing sent', async () => {
    const err = await apiError(h.client.chat.completions.create({ ...request, model: 'gemini-2.5-flash-preview-tts' }));
    expect(err.status).toBe(400);
    expect(err.param).toBe('web_search_options');
    expect(err.code).toBe('unsupported_parameter');
    expect(err.message).toContain('gemini-2.5-flash-preview-tts');
    expect(h.emulator.requests).toHaveLength(0);
  });

  it('a malformed web_search_options → 400 naming the field', async () => {
    const err = await apiError(h.client.chat.completions.create({ ...request, web_search_options: { search_context_size: 'huge' } } as never));
    expect(err.status).toBe(400);
    expect(err.param).toBe('web_search_options.search_context_size');
  });
});
