import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleError, startEmulator, type Emulator } from './index.js';
import { KEY, parseSse, post, userText } from './test-helpers.js';

let emu: Emulator;
const gen = (model = 'gemini-2.5-flash') => `${emu.url}/v1beta/models/${model}:generateContent`;
const sse = (model = 'gemini-2.5-flash') => `${emu.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

describe('routes and default answers', () => {
  it('answers generateContent with the echo rule, usage formula and model version', async () => {
    const res = await post(gen(), userText('Hello there'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    const body = (await res.json()) as Record<string, unknown>;
    // "Hello there" = 11 chars → 3 tokens; "Echo: Hello there" = 17 chars → 5 tokens.
    expect(body).toStrictEqual({
      candidates: [{ content: { parts: [{ text: 'Echo: Hello there' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: 3,
        candidatesTokenCount: 5,
        totalTokenCount: 8,
        promptTokensDetails: [{ modality: 'TEXT', tokenCount: 3 }],
      },
      modelVersion: 'gemini-2.5-flash',
      responseId: expect.any(String),
    });
  });

  it('streams SSE with CRLF framing, no [DONE], constant responseId, cumulative usage, finishReason last', async () => {
    const text = 'Please tell me a fairly long story about the sea and its waves';
    const res = await post(sse(), userText(text));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const raw = await res.text();
    expect(raw).not.toContain('[DONE]');
    const chunks = parseSse(raw) as Array<Record<string, any>>;
    expect(chunks.length).toBeGreaterThan(1);
    const ids = new Set(chunks.map((c) => c.responseId));
    expect(ids.size).toBe(1);
    const joined = chunks.map((c) => c.candidates[0].content.parts?.map((p: any) => p.text).join('') ?? '').join('');
    expect(joined).toBe(`Echo: ${text}`);
    const counts = chunks.map((c) => c.usageMetadata.candidatesTokenCount);
    expect([...counts].sort((a, b) => a - b)).toStrictEqual(counts);
    expect(counts.at(-1)).toBe(Math.ceil(`Echo: ${text}`.length / 4));
    for (const c of chunks) expect(c.usageMetadata.promptTokenCount).toBe(Math.ceil(text.length / 4));
    expect(chunks.slice(0, -1).every((c) => c.candidates[0].finishReason === undefined)).toBe(true);
    expect(chunks.at(-1)!.candidates[0].finishReason).toBe('STOP');
  });

  it('streams a JSON array without alt=sse', async () => {
    const res = await post(`${emu.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, userText('one two three four five six'));
    const raw = await res.text();
    expect(raw.startsWith('[{')).toBe(true);
    expect(raw.endsWith('\r\n]')).toBe(true);
    expect(raw).toContain('\r\n,{');
    const arr = JSON.parse(raw) as Array<Record<string, any>>;
    expect(arr.at(-1)!.candidates[0].finishReason).toBe('STOP');
  });

  it('counts tokens for both request forms', async () => {
    const url = `${emu.url}/v1beta/models/gemini-2.5-flash:countTokens`;
    const contents = [{ role: 'user', parts: [{ text: 'The quick brown fox jumps over the lazy dog.' }] }];
    const a = await (await post(url, { contents })).json();
    expect(a).toStrictEqual({ totalTokens: 11, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 11 }] });
    const b = await (
      await post(url, { generateContentRequest: { model: 'models/gemini-2.5-flash', contents, systemInstruction: { parts: [{ text: 'abcd' }] } } })
    ).json();
    expect(b).toStrictEqual({ totalTokens: 12, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 12 }] });
    const both = await post(url, { contents, generateContentRequest: { contents } });
    expect(both.status).toBe(400);
  });

  it('lists and gets models; unknown model gets the exact 404 text', async () => {
    const list = (await (await fetch(`${emu.url}/v1beta/models?key=${KEY}`)).json()) as { models: Array<{ name: string }> };
    expect(list.models.map((m) => m.name)).toContain('models/gemini-2.5-flash');
    const one = (await (await fetch(`${emu.url}/v1beta/models/gemini-2.5-pro?key=${KEY}`)).json()) as Record<string, unknown>;
    expect(one.name).toBe('models/gemini-2.5-pro');
    expect(one.supportedGenerationMethods).toContain('generateContent');
    const res = await post(gen('gemini-nope'), userText('hi'));
    expect(res.status).toBe(404);
    expect(await res.json()).toStrictEqual({
      error: {
        code: 404,
        message:
          'models/gemini-nope is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
        status: 'NOT_FOUND',
      },
    });
  });

  it('records method, path with query, lower-case headers and parsed body', async () => {
    await post(`${sse()}&foo=1`, userText('x'), { 'X-Custom': 'v' });
    expect(emu.requests).toHaveLength(1);
    const r = emu.requests[0]!;
    expect(r.method).toBe('POST');
    expect(r.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&foo=1');
    expect(r.headers['x-custom']).toBe('v');
    expect(r.body).toStrictEqual(userText('x'));
    expect(r.model).toBe('gemini-2.5-flash');
    expect(r.rpc).toBe('streamGenerateContent');
  });
});

describe('auth', () => {
  it('accepts ?key= as well as the header', async () => {
    const res = await fetch(`${gen()}?key=${KEY}`, { method: 'POST', body: JSON.stringify(userText('hi')) });
    expect(res.status).toBe(200);
  });

  it('missing key → 403 PERMISSION_DENIED unregistered callers', async () => {
    const res = await fetch(gen(), { method: 'POST', body: JSON.stringify(userText('hi')) });
    expect(res.status).toBe(403);
    const body = (await res.json()) as any;
    expect(body.error.status).toBe('PERMISSION_DENIED');
    expect(body.error.message).toContain("Method doesn't allow unregistered callers");
  });

  it('bad key → 400 API_KEY_INVALID when keys are configured', async () => {
    const strict = await startEmulator({ apiKeys: ['good'] });
    try {
      const bad = await post(`${strict.url}/v1beta/models/gemini-2.5-flash:generateContent`, userText('hi'), { 'x-goog-api-key': 'bad' });
      expect(bad.status).toBe(400);
      const body = (await bad.json()) as any;
      expect(body.error.message).toBe('API key not valid. Please pass a valid API key.');
      expect(body.error.details[0].reason).toBe('API_KEY_INVALID');
      const good = await post(`${strict.url}/v1beta/models/gemini-2.5-flash:generateContent`, userText('hi'), { 'x-goog-api-key': 'good' });
      expect(good.status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('scripted replies', () => {
  it('serves a JSON error reply with RetryInfo and headers, then the default again', async () => {
    emu.enqueue({ status: 429, body: googleError(429, undefined, { retryDelay: '7s' }), headers: { 'retry-after': '7' } });
    const first = await post(gen(), userText('hi'));
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('7');
    const body = (await first.json()) as any;
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.details.at(-1)).toStrictEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' });
    expect((await post(gen(), userText('hi'))).status).toBe(200);
  });

  it('uses match to target a model, leaving other calls on the default', async () => {
    emu.enqueue({ status: 503, body: googleError(503), match: (r) => r.model === 'gemini-2.5-pro' });
    expect((await post(gen('gemini-2.5-flash'), userText('hi'))).status).toBe(200);
    expect((await post(gen('gemini-2.5-pro'), userText('hi'))).status).toBe(503);
  });

  it('streams scripted chunks and ends with an in-stream error event', async () => {
    emu.enqueue({
      chunks: [{ data: { candidates: [{ content: { role: 'model', parts: [{ text: 'a' }] } }] } }, { data: { x: 1 }, delayMs: 5 }],
      end: { error: googleError(503).error },
    });
    const raw = await (await post(sse(), userText('hi'))).text();
    const events = parseSse(raw);
    expect(events).toHaveLength(3);
    expect(events[2]).toStrictEqual(googleError(503));
  });

  it('drops the connection mid-stream', async () => {
    emu.enqueue({ chunks: [{ data: { a: 1 } }], end: 'drop' });
    const res = await post(sse(), userText('hi'));
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('drops the socket before any response', async () => {
    emu.enqueue({ drop: true });
    await expect(post(gen(), userText('hi'))).rejects.toThrow();
  });

  it('delays then gives the default answer', async () => {
    emu.enqueue({ delayMs: 20 });
    const res = await post(gen(), userText('late'));
    expect(((await res.json()) as any).candidates[0].content.parts[0].text).toBe('Echo: late');
  });

  it('sends a 200 JSON reply to a stream call as one event', async () => {
    emu.enqueue({ status: 200, body: { candidates: [], responseId: 'r' } });
    expect(parseSse(await (await post(sse(), userText('hi'))).text())).toStrictEqual([{ candidates: [], responseId: 'r' }]);
  });

  it('writes raw fault replies piece by piece, with repeats, over the control API', async () => {
    const q = await post(`${emu.url}/__emulator/replies`, [
      { status: 502, raw: ['<html>', { repeat: 'ab', times: 100_000 }, '</html>'], headers: { 'content-type': 'text/html' } },
    ]);
    expect(q.status).toBe(200);
    const res = await post(gen(), userText('hi'));
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toBe(`<html>${'ab'.repeat(100_000)}</html>`);
    const bad = await post(`${emu.url}/__emulator/replies`, [{ raw: [{ repeat: 1, times: 2 }] }]);
    expect(bad.status).toBe(400);
  });

  it('control API queues replies, lists requests and resets', async () => {
    const q = await post(`${emu.url}/__emulator/replies`, [{ status: 500, body: googleError(500) }]);
    expect(await q.json()).toStrictEqual({ queued: 1, pending: 1 });
    expect((await post(gen(), userText('hi'))).status).toBe(500);
    const reqs = (await (await fetch(`${emu.url}/__emulator/requests`)).json()) as unknown[];
    expect(reqs).toHaveLength(1);
    const bad = await post(`${emu.url}/__emulator/replies`, [{ nonsense: true }]);
    expect(bad.status).toBe(400);
    await post(`${emu.url}/__emulator/reset`, {});
    expect(emu.requests).toHaveLength(0);
  });
});
