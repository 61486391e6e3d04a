/**
 * `logprobs` / `top_logprobs` (issue 23 row 4; docs/gemini-fields.md) → `responseLogprobs` /
 * `logprobs`; `choices[i].logprobs.content` in OpenAI's shape, per chunk when streamed (OpenAI's
 * own fields, so strict mode too); a model known to refuse them → 400 naming it; a model the
 * gateway lets through but Google refuses → Google's 400 relayed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { apiError, collect, NON_STRICT } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.emulator.reset());

const bytes = (s: string) => [...Buffer.from(s, 'utf8')];
/** The emulator's tokens for "Echo: hi there" and their log probabilities (features/logprobs.ts). */
const tokens = ['Echo:', ' hi', ' there'];
const want = tokens.map((token, k) => {
  const logprob = -(k + 1) / 100;
  return {
    token,
    logprob,
    bytes: bytes(token),
    top_logprobs: [
      { token, logprob, bytes: bytes(token) },
      { token: `${token}~1`, logprob: logprob - 1, bytes: bytes(`${token}~1`) },
    ],
  };
});
const request = { model: 'gemini-2.0-flash', messages: [{ role: 'user' as const, content: 'hi there' }], logprobs: true, top_logprobs: 2 };
const upstream = { contents: [{ role: 'user', parts: [{ text: 'hi there' }] }], generationConfig: { responseLogprobs: true, logprobs: 2 } };

describe('logprobs', () => {
  it.each([
    { mode: 'strict', options: undefined },
    { mode: 'non-strict', options: NON_STRICT },
  ])('$mode: sends responseLogprobs/logprobs and answers logprobs.content', async ({ options }) => {
    const out = await h.client.chat.completions.create(request, options);
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
    expect(out.choices[0]!.logprobs).toStrictEqual({ content: want, refusal: null });
  });

  it('streams logprobs per chunk; together they cover the streamed text', async () => {
    const chunks = await collect(await h.client.chat.completions.create({ ...request, stream: true }));
    expect(h.emulator.requests[0]!.body).toStrictEqual(upstream);
    const content = chunks.flatMap((c) => c.choices[0]?.logprobs?.content ?? []);
    expect(content.map((t) => t.token).join('')).toBe('Echo: hi there');
    // Decoding steps continue across chunks (a chunk may end on a whitespace token).
    expect(content.map((t) => t.logprob)).toStrictEqual(content.map((_, k) => -(k + 1) / 100));
    expect(chunks.filter((c) => c.choices[0]?.logprobs).length).toBeGreaterThan(1);
  });

  it('without logprobs the choice says null', async () => {
    const out = await h.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }] });
    expect(out.choices[0]!.logprobs).toBeNull();
  });

  it('a model known to refuse logprobs → 400 unsupported_parameter naming it, nothing sent', async () => {
    const err = await apiError(h.client.chat.completions.create({ ...request, model: 'gemini-2.5-flash' }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('unsupported_parameter');
    expect(err.param).toBe('logprobs');
    expect(err.message).toContain('gemini-2.5-flash');
    expect(h.emulator.requests).toHaveLength(0);
  });

  it("a model the gateway lets through but Google refuses → Google's 400, relayed", async () => {
    const err = await apiError(h.client.chat.completions.create({ ...request, model: 'gemini-3-flash-preview' }));
    expect(err.status).toBe(400);
    expect(err.message).toContain('Logprobs is not enabled for models/gemini-3-flash-preview');
    expect(h.emulator.requests).toHaveLength(1);
  });

  it('top_logprobs without logprobs → 400 naming top_logprobs', async () => {
    const err = await apiError(h.client.chat.completions.create({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'hi' }], top_logprobs: 2 }));
    expect(err.status).toBe(400);
    expect(err.param).toBe('top_logprobs');
  });
});
