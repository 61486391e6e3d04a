/**
 * Media resolution and video clips (issue 23 row 5; docs/gemini-fields.md): OpenAI's
 * `image_url.detail` → `mediaResolution` per part on Gemini 3, request-wide otherwise; LiteLLM's
 * `video_metadata` (on `file` parts, and on `image_url` video URLs) → the part's `videoMetadata`.
 */
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from '../../../src/emulator/index.js';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, NON_STRICT } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const png = `data:image/png;base64,${TINY_PNG_BASE64}`;
const image = (detail: 'low' | 'high' | 'auto'): ChatCompletionContentPart => ({ type: 'image_url', image_url: { url: png, detail } });
const inline = { inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 } };
const ask = (model: string, content: ChatCompletionContentPart[]) => ({ model, messages: [{ role: 'user' as const, content }] });

describe('image_url.detail', () => {
  it('Gemini 3: per part, auto sends none; the same in strict and non-strict mode, streamed and not', async () => {
    const request = ask('gemini-3-flash-preview', [image('low'), image('high'), image('auto'), { type: 'text', text: 'compare' }]);
    const want = {
      contents: [
        {
          role: 'user',
          parts: [
            { ...inline, mediaResolution: { level: 'MEDIA_RESOLUTION_LOW' } },
            { ...inline, mediaResolution: { level: 'MEDIA_RESOLUTION_HIGH' } },
            inline,
            { text: 'compare' },
          ],
        },
      ],
    };
    await h.client.chat.completions.create(request);
    await h.client.chat.completions.create(request, NON_STRICT);
    await collect(await h.client.chat.completions.create({ ...request, stream: true }));
    expect(h.emulator.requests.map((r) => r.body)).toStrictEqual([want, want, want]);
  });

  it('Gemini 2.5: request-wide generationConfig.mediaResolution', async () => {
    await h.client.chat.completions.create(ask('gemini-2.5-flash', [image('high'), image('high'), image('auto')]));
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [{ role: 'user', parts: [inline, inline, inline] }],
      generationConfig: { mediaResolution: 'MEDIA_RESOLUTION_HIGH' },
    });
  });

  it('Gemini 2.5 with two different details → 400 naming the second, nothing sent', async () => {
    const err = await apiError(h.client.chat.completions.create(ask('gemini-2.5-flash', [image('low'), image('high')])));
    expect(err.status).toBe(400);
    expect(err.param).toBe('messages[0].content[1].image_url.detail');
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('video_metadata', () => {
  const youtube = 'https://www.youtube.com/watch?v=XEzRZ35urlk';

  it('on a YouTube image_url and on a file part (LiteLLM form) → videoMetadata beside the data', async () => {
    const content = [
      { type: 'image_url', image_url: { url: youtube, video_metadata: { start_offset: '1250s', end_offset: 1570, fps: 5 } } },
      { type: 'file', file: { file_data: 'data:video/mp4;base64,AAAA', video_metadata: { start_offset: '62.5s' } } },
      { type: 'text', text: 'summarise' },
    ];
    for (const options of [undefined, NON_STRICT]) {
      h.emulator.reset();
      await h.client.chat.completions.create(ask('gemini-2.5-flash', content as never), options);
      expect(h.emulator.requests[0]!.body).toStrictEqual({
        contents: [
          {
            role: 'user',
            parts: [
              { fileData: { fileUri: youtube }, videoMetadata: { startOffset: '1250s', endOffset: '1570s', fps: 5 } },
              { inlineData: { mimeType: 'video/mp4', data: 'AAAA' }, videoMetadata: { startOffset: '62.5s' } },
              { text: 'summarise' },
            ],
          },
        ],
      });
    }
  });

  it.each([
    { name: 'on an image', part: { type: 'image_url', image_url: { url: png, video_metadata: { fps: 1 } } }, param: 'messages[0].content[0].image_url.video_metadata' },
    {
      name: 'with fps above 24',
      part: { type: 'image_url', image_url: { url: 'https://youtu.be/XEzRZ35urlk', video_metadata: { fps: 30 } } },
      param: 'messages[0].content[0].image_url.video_metadata.fps',
    },
    {
      name: 'with a malformed offset',
      part: { type: 'image_url', image_url: { url: 'https://youtu.be/XEzRZ35urlk', video_metadata: { start_offset: '1m' } } },
      param: 'messages[0].content[0].image_url.video_metadata.start_offset',
    },
  ])('$name → 400 naming it, nothing sent', async ({ part, param }) => {
    const err = await apiError(h.client.chat.completions.create(ask('gemini-2.5-flash', [part as never])));
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
    expect(h.emulator.requests).toHaveLength(0);
  });
});
