/**
 * Multimodal input through one part type (issue 3 item 2, DESIGN Decision 11): `image_url` data
 * URIs of every accepted kind → `inlineData` with the same base64 string; provider file URLs →
 * `fileData` with the MIME type from the files API; YouTube → `fileData`; other URLs → 400.
 */
import { toFile } from 'openai';
import type { ChatCompletionContentPart } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TINY_PNG_BASE64 } from '../../../src/emulator/index.js';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, streamedText } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

/** The client's MIME type → what Gemini gets (text and HTML go as text/plain). */
const KINDS: Array<[string, string]> = [
  ['image/png', 'image/png'],
  ['image/jpeg', 'image/jpeg'],
  ['image/webp', 'image/webp'],
  ['image/heic', 'image/heic'],
  ['image/heif', 'image/heif'],
  ['audio/wav', 'audio/wav'],
  ['audio/mp3', 'audio/mp3'],
  ['audio/aiff', 'audio/aiff'],
  ['audio/aac', 'audio/aac'],
  ['audio/ogg', 'audio/ogg'],
  ['audio/flac', 'audio/flac'],
  ['audio/pcm', 'audio/pcm'],
  ['audio/m4a', 'audio/m4a'],
  ['audio/mpeg', 'audio/mpeg'],
  ['audio/mpga', 'audio/mpga'],
  ['audio/mp4', 'audio/mp4'],
  ['audio/webm', 'audio/webm'],
  ['video/mp4', 'video/mp4'],
  ['video/mpeg', 'video/mpeg'],
  ['video/mov', 'video/mov'],
  ['video/avi', 'video/avi'],
  ['video/webm', 'video/webm'],
  ['video/wmv', 'video/wmv'],
  ['application/pdf', 'application/pdf'],
  ['text/plain', 'text/plain'],
  ['text/csv', 'text/plain'],
  ['text/html', 'text/plain'],
];

/** A distinct base64 payload per kind, so a swapped or re-encoded payload shows. */
const payload = (mime: string) => Buffer.from(`bytes of ${mime}`).toString('base64');

const imagePart = (url: string, extra: Record<string, string> = {}): ChatCompletionContentPart =>
  ({ type: 'image_url', image_url: { url, ...extra } }) as ChatCompletionContentPart;

describe('data URIs', () => {
  const content: ChatCompletionContentPart[] = [];
  const wantParts: unknown[] = [];
  KINDS.forEach(([mime, upstream], i) => {
    // Text and media interleaved, in the client's order.
    if (i % 5 === 0) {
      content.push({ type: 'text', text: `note ${i}` });
      wantParts.push({ text: `note ${i}` });
    }
    content.push(imagePart(`data:${mime};base64,${payload(mime)}`));
    wantParts.push({ inlineData: { mimeType: upstream, data: payload(mime) } });
  });
  content.push({ type: 'input_audio', input_audio: { data: payload('wav'), format: 'wav' } });
  wantParts.push({ inlineData: { mimeType: 'audio/wav', data: payload('wav') } });

  it('sends every accepted kind as inlineData with the same base64 string, in order with the text', async () => {
    const completion = await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content }],
    });
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: [{ role: 'user', parts: wantParts }] });
    // The emulator's echo lists the media it read, so the answer proves the parts arrived.
    expect(completion.choices[0]!.message.content).toContain('[inlineData image/heif]');
    expect(completion.choices[0]!.message.content).toContain('note 25 [inlineData text/plain]');
  });

  it('sends the same parts on a streamed call', async () => {
    const chunks = await collect(
      await h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content }], stream: true }),
    );
    expect(h.emulator.requests[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(h.emulator.requests[0]!.body).toStrictEqual({ contents: [{ role: 'user', parts: wantParts }] });
    expect(streamedText(chunks)).toContain('[inlineData video/wmv]');
  });

  it.each([
    { name: 'an unsupported type', url: 'data:application/zip;base64,UEsDBA==', code: 'unsupported_media_type', says: '"application/zip" is not supported' },
    { name: 'no base64 marker', url: 'data:image/png,rawbytes', code: 'invalid_media', says: 'malformed data URI' },
    { name: 'no MIME type', url: 'data:;base64,AAAA', code: 'invalid_media', says: 'malformed data URI' },
    { name: 'a payload that is not base64', url: 'data:image/png;base64,not base64!', code: 'invalid_media', says: 'not base64' },
  ])('refuses $name with a 400 naming the message and part', async ({ url, code, says }) => {
    const err = await apiError(
      h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: [{ type: 'text', text: 'look' }, imagePart(`data:image/png;base64,${TINY_PNG_BASE64}`), imagePart(url)] },
        ],
      }),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe('messages[1].content[2]');
    expect(err.message).toContain('messages[1].content[2]');
    expect(err.message).toContain(says);
    expect(err.code).toBe(code);
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('URLs', () => {
  it('sends an uploaded provider file as fileData with the MIME type read from the files API (once)', async () => {
    const file = (await h.client.files.create({
      file: await toFile(Buffer.from(TINY_PNG_BASE64, 'base64'), 'dot.png', { type: 'image/png' }),
      purpose: 'user_data',
    })) as unknown as { id: string; uri: string };
    expect(file.uri).toBe(`${h.emulator.url}/v1beta/files/${file.id}`);
    const before = h.emulator.requests.length;

    const ask = () =>
      h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: [imagePart(file.uri), { type: 'text', text: 'what is this?' }] }],
      });
    const completion = await ask();
    const calls = h.emulator.requests.slice(before);
    expect(calls.map((r) => `${r.method} ${r.path}`)).toStrictEqual([
      `GET /v1beta/files/${file.id}`,
      'POST /v1beta/models/gemini-2.5-flash:generateContent',
    ]);
    expect(calls[1]!.body).toStrictEqual({
      contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: file.uri } }, { text: 'what is this?' }] }],
    });
    expect(completion.choices[0]!.message.content).toBe(`Echo: [fileData image/png ${file.uri}] what is this?`);

    // The MIME type is cached: the second call goes straight to generateContent.
    await ask();
    expect(h.emulator.requests.slice(before + 2).map((r) => r.method)).toStrictEqual(['POST']);
  });

  it('takes an explicit mime_type for a provider file without asking the files API', async () => {
    const file = (await h.client.files.create({
      file: await toFile(Buffer.from(TINY_PNG_BASE64, 'base64'), 'dot.png', { type: 'image/png' }),
      purpose: 'user_data',
    })) as unknown as { id: string; uri: string };
    const before = h.emulator.requests.length;
    await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: [imagePart(file.uri, { mime_type: 'image/png' })] }],
    });
    const calls = h.emulator.requests.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toStrictEqual({ contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: file.uri } }] }] });
  });

  it('sends a YouTube URL as fileData', async () => {
    const url = 'https://www.youtube.com/watch?v=9hE5-98ZeCg';
    await h.client.chat.completions.create({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'summarise' }, imagePart(url)] }],
    });
    expect(h.emulator.requests[0]!.body).toStrictEqual({
      contents: [{ role: 'user', parts: [{ text: 'summarise' }, { fileData: { fileUri: url } }] }],
    });
  });

  it('refuses any other http(s) URL by default with a 400 naming the part', async () => {
    const err = await apiError(
      h.client.chat.completions.create({
        model: 'gemini-2.5-flash',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, imagePart('https://example.com/cat.png')] }],
      }),
    );
    expect(err.status).toBe(400);
    expect(err.param).toBe('messages[0].content[1]');
    expect(err.code).toBe('media_url_not_allowed');
    expect(err.message).toContain('messages[0].content[1]: media URLs are not fetched by this gateway');
    expect(h.emulator.requests).toHaveLength(0);
  });
});
