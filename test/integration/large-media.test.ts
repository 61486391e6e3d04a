/**
 * Large inline media take the by-reference path (src/openai/inline-blobs.ts): what reaches Gemini
 * must be byte for byte what the client sent, streaming or not, and bad payloads still get a 400.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postChat, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(3 * 1024 * 1024)]).toString('base64');
const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1024 * 1024)]).toString('base64');

describe('large inline media', () => {
  it.each([false, true])('reach Gemini byte for byte (stream: %s)', async (stream) => {
    const res = await postChat(h, {
      model: 'gemini-2.5-flash',
      stream,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these.' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
            { type: 'image_url', image_url: { url: `data:application/pdf;base64,${pdf}` } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    await res.text();
    const sent = h.emulator.requests[0]!.body as { contents: Array<{ parts: unknown[] }> };
    expect(sent.contents[0]!.parts).toStrictEqual([
      { text: 'Compare these.' },
      { inlineData: { mimeType: 'image/png', data: png } },
      { inlineData: { mimeType: 'application/pdf', data: pdf } },
    ]);
  });

  it('refuses a large payload that is not base64, naming the part', async () => {
    const bad = `${png.slice(0, 600_000)}!!${png.slice(600_000, 1_200_000)}`;
    const res = await postChat(h, {
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${bad}` } }] }],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { param: string } };
    expect(body.error.param).toBe('messages[0].content[0]');
    expect(h.emulator.requests).toHaveLength(0);
  });
});
