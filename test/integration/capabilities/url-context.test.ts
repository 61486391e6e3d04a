/**
 * Gemini's URL context tool (issue 23 row 1; docs/gemini-fields.md): `{type: "url_context"}` and
 * the function-named form → `{urlContext: {}}`; `urlContextMetadata` on the choice only with
 * strict compliance off; the retrieved pages are prompt tokens (`toolUsePromptTokenCount`).
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

const prompt = 'Compare https://example.com/a and http://localhost:9/b.';
const upstream = { contents: [{ role: 'user', parts: [{ text: prompt }] }], tools: [{ urlContext: {} }] };
/** The emulator retrieves public URLs and refuses loopback ones (src/emulator/features/url-context.ts). */
const metadata = {
  urlMetadata: [
    { retrievedUrl: 'https://example.com/a', urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_SUCCESS' },
    { retrievedUrl: 'http://localhost:9/b', urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_ERROR' },
  ],
};
const tools: Array<{ name: string; tool: ChatCompletionTool }> = [
  { name: 'type url_context', tool: { type: 'url_context' } as unknown as ChatCompletionTool },
  { name: 'function named url_context', tool: { type: 'function', function: { name: 'url_context' } } },
];

describe('url_context', () => {
  it.each(tools)('$name: sends urlContext; urlContextMetadata only non-strict; retrieval tokens in prompt_tokens', async ({ tool }) => {
    const request = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: prompt }], tools: [tool] };
    const loose = await h.client.chat.completions.create(request, NON_STRICT);
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
    expect(loose.choices[0]!.message.content).toBe(`Echo: ${prompt}`);
    expect((loose.choices[0] as unknown as Record<string, unknown>).urlContextMetadata).toStrictEqual(metadata);
    // 14 prompt tokens (ceil(56/4)) + 100 for the one retrieved page.
    expect(loose.usage?.prompt_tokens).toBe(14 + 100);

    const strict = await h.client.chat.completions.create(request);
    expect(h.emulator.requests[1]!.body).toStrictEqual(upstream);
    expect(JSON.stringify(strict)).not.toContain('urlContextMetadata');
    expect(strict.usage?.prompt_tokens).toBe(114);
  });

  it('streams urlContextMetadata on the final chunk only non-strict', async () => {
    const request = { model: 'gemini-3-flash-preview', messages: [{ role: 'user' as const, content: prompt }], tools: [tools[0]!.tool], stream: true as const, stream_options: { include_usage: true } };
    const loose = await collect(await h.client.chat.completions.create(request, NON_STRICT));
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-3-flash-preview:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
    expect(streamedText(loose)).toBe(`Echo: ${prompt}`);
    const carrying = loose.filter((c) => c.choices[0] && 'urlContextMetadata' in c.choices[0]);
    expect(carrying).toHaveLength(1);
    expect((carrying[0]!.choices[0] as unknown as Record<string, unknown>).urlContextMetadata).toStrictEqual(metadata);
    expect(loose.at(-1)!.usage?.prompt_tokens).toBe(114);

    const strict = await collect(await h.client.chat.completions.create(request));
    expect(JSON.stringify(strict)).not.toContain('urlContextMetadata');
  });

  it('a model without URL context → 400 unsupported_parameter naming it, nothing sent', async () => {
    const err = await apiError(
      h.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: prompt }], tools: [tools[0]!.tool] }),
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe('unsupported_parameter');
    expect(err.param).toBe('tools');
    expect(err.message).toContain('gemini-2.0-flash');
    expect(h.emulator.requests).toHaveLength(0);
  });
});
