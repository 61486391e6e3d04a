/**
 * One upstream stream event larger than `SIDEGATE_MAX_UPSTREAM_EVENT_BYTES` ends the call with a
 * clear error (a 502 before the stream started, an error event after), and the gateway keeps serving.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postChat, sseData, startHarness, type Harness } from './harness.js';

const CAP = 64 * 1024;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxUpstreamEventBytes: CAP });
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const request = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: 'hi' }], stream: true as const };
const chunk = (text: string, finishReason?: string) => ({
  data: {
    candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    modelVersion: 'gemini-2.5-flash',
  },
});

describe('upstream event cap', () => {
  it('an event under the cap passes whole', async () => {
    const text = 'y'.repeat(CAP - 1024);
    h.emulator.enqueue({ chunks: [chunk(text, 'STOP')] });
    const stream = await h.client.chat.completions.create(request);
    let content = '';
    for await (const c of stream) content += c.choices[0]?.delta.content ?? '';
    expect(content).toBe(text);
  });

  it('an oversized event after the stream started → an error event naming the setting, no [DONE]', async () => {
    h.emulator.enqueue({ chunks: [chunk('first '), chunk('x'.repeat(CAP * 2), 'STOP')] });
    const res = await postChat(h, request);
    expect(res.status).toBe(200);
    const events = sseData(await res.text());
    expect(JSON.parse(events[0]!).choices[0].delta.content).toBe('first ');
    const last = JSON.parse(events[events.length - 1]!);
    expect(last.error.message).toMatch(/larger than 65536 bytes \(SIDEGATE_MAX_UPSTREAM_EVENT_BYTES\)/);
    expect(last.error.type).toBe('api_error');
    expect(events).not.toContain('[DONE]');
  });

  it('the openai SDK raises that error instead of returning a short answer', async () => {
    h.emulator.enqueue({ chunks: [chunk('first '), chunk('x'.repeat(CAP * 2), 'STOP')] });
    const stream = await h.client.chat.completions.create(request);
    await expect(async () => {
      for await (const _ of stream) {
        // drain
      }
    }).rejects.toThrow(/SIDEGATE_MAX_UPSTREAM_EVENT_BYTES/);
  });

  it('an oversized first event → 502 before the stream starts, and the next call is served', async () => {
    h.emulator.enqueue({ chunks: [chunk('x'.repeat(CAP * 2), 'STOP')] });
    const res = await postChat(h, request);
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/SIDEGATE_MAX_UPSTREAM_EVENT_BYTES/);
    const ok = await h.client.chat.completions.create({ ...request, stream: false });
    expect(ok.choices[0]!.message.content).toBeTruthy();
  });
});
