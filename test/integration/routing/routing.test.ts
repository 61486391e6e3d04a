/**
 * Routing configs end to end through real HTTP: official `openai` SDK → gateway → Gemini
 * emulator and an OpenAI-compatible upstream, faults scripted in both. Asserts what the client
 * got, what each upstream received, and the attempt spans the real OTel SDK recorded.
 */
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleError } from '../../../src/emulator/index.js';
import { PROVIDER_KEY, postChat, sseData } from '../harness.js';
import { UPSTREAM_TEXT } from './openai-upstream.js';
import { config, geminiText, startRoutingHarness, type RoutingHarness } from './routing-harness.js';

// Obviously fake credential of the OpenAI-compatible target.
const OPENAI_KEY = 'test-openai-compatible-key';

let h: RoutingHarness;
beforeAll(async () => {
  h = await startRoutingHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'hello' }];
const ask = (headers: Record<string, string>, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
  h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages, ...extra }, { headers }).withResponse();
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

/** The attempt attributes the issue names, one row per span. */
function rows(spans: ReadableSpan[]) {
  return spans.map((s) => ({
    provider: s.attributes['gen_ai.provider.name'],
    model: s.attributes['gen_ai.request.model'],
    number: s.attributes['gateway.attempt.number'],
    target: s.attributes['gateway.target.index'],
    resend: s.attributes['http.request.resend_count'],
    status: s.attributes['http.response.status_code'],
    error: s.attributes['error.type'],
    failed: s.status.code === SpanStatusCode.ERROR,
  }));
}

const fallbackToOpenAI = (strategy: Record<string, unknown> = {}) => ({
  strategy: { mode: 'fallback', ...strategy },
  targets: [
    { provider: 'google' },
    { provider: 'openai', api_key: OPENAI_KEY, override_params: { model: 'gpt-4o-mini' } },
  ],
});

describe('retries', () => {
  it('retries a 503 on the same target, honouring Retry-After, then succeeds', async () => {
    h.emulator.enqueue(
      { status: 503, body: googleError(503, 'The model is overloaded.'), headers: { 'retry-after': '1' } },
      { status: 200, body: geminiText('second time lucky') },
    );
    const { data, response } = await ask(config({ retry: { attempts: 2, use_retry_after_header: true } }));
    expect(data.choices[0]!.message.content).toBe('second time lucky');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('1');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config');
    expect(h.emulator.requests).toHaveLength(2);

    const spans = h.attempts(response.headers.get('traceparent'));
    expect(rows(spans)).toStrictEqual([
      { provider: 'gcp.gemini', model: 'gemini-2.5-flash', number: 1, target: 'config', resend: undefined, status: 503, error: '503', failed: true },
      { provider: 'gcp.gemini', model: 'gemini-2.5-flash', number: 2, target: 'config', resend: 1, status: 200, error: undefined, failed: false },
    ]);
    // The wait is the gap between the two attempt spans, not inside either.
    const gapMs = (spans[1]!.startTime[0] - spans[0]!.endTime[0]) * 1000 + (spans[1]!.startTime[1] - spans[0]!.endTime[1]) / 1e6;
    expect(gapMs).toBeGreaterThanOrEqual(900);
    expect(h.requestSpan(response.headers.get('traceparent')).attributes['gateway.attempts']).toBe(2);
  });

  it('retries a dropped connection', async () => {
    h.emulator.enqueue({ drop: true });
    const { response } = await ask(config({ retry: { attempts: 1 } }));
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('1');
    expect(rows(h.attempts(response.headers.get('traceparent'))).map((r) => r.error)).toStrictEqual(['connection_error', undefined]);
  });

  it('does not retry a 400', async () => {
    h.emulator.enqueue({ status: 400, body: googleError(400, 'Invalid argument.') });
    const err = await failure(ask(config({ retry: { attempts: 3 } })));
    expect(err.status).toBe(400);
    expect(h.emulator.requests).toHaveLength(1);
  });
});

describe('fallback', () => {
  it('falls back from Gemini to an OpenAI-compatible upstream with its own key and model', async () => {
    h.emulator.enqueue({ status: 503, body: googleError(503, 'The model is overloaded.') });
    const { data, response } = await ask(config(fallbackToOpenAI()));
    expect(data.choices[0]!.message.content).toBe(UPSTREAM_TEXT);
    expect(data.model).toBe('gpt-4o-mini');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('1');

    expect(h.emulator.requests[0]!.headers['x-goog-api-key']).toBe(PROVIDER_KEY);
    const [up] = h.upstream.requests;
    expect(h.upstream.requests).toHaveLength(1);
    expect(up!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(up!.body.model).toBe('gpt-4o-mini');
    expect(JSON.stringify(up!.headers)).not.toContain(PROVIDER_KEY);

    const tp = response.headers.get('traceparent');
    const spans = h.attempts(tp);
    expect(rows(spans)).toStrictEqual([
      { provider: 'gcp.gemini', model: 'gemini-2.5-flash', number: 1, target: 'config.targets[0]', resend: undefined, status: 503, error: '503', failed: true },
      { provider: 'openai', model: 'gpt-4o-mini', number: 2, target: 'config.targets[1]', resend: undefined, status: 200, error: undefined, failed: false },
    ]);
    expect(spans[1]!.name).toBe('chat gpt-4o-mini');
    // Each attempt span's own context went upstream.
    expect(up!.headers.traceparent).toBe(`00-${spans[1]!.spanContext().traceId}-${spans[1]!.spanContext().spanId}-01`);
    expect(spans.every((s) => s.parentSpanContext?.spanId === h.requestSpan(tp).spanContext().spanId)).toBe(true);
  });

  it('does not fall back on a 400 unless on_status_codes lists it', async () => {
    h.emulator.enqueue({ status: 400, body: googleError(400, 'Invalid argument.') });
    expect((await failure(ask(config(fallbackToOpenAI())))).status).toBe(400);
    expect(h.upstream.requests).toHaveLength(0);

    h.emulator.enqueue({ status: 400, body: googleError(400, 'Invalid argument.') });
    const { response } = await ask(config(fallbackToOpenAI({ on_status_codes: [400] })));
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
  });

  it('everything fails: the client gets the last error, after every attempt', async () => {
    h.emulator.enqueue(
      { status: 503, body: googleError(503, 'overloaded') },
      { status: 500, body: googleError(500, 'internal') },
    );
    h.upstream.enqueue({ status: 429, body: { error: { message: 'Rate limit reached', type: 'rate_limit_error', code: 'rate_limit' } } });
    const res = await postChat(h, { model: 'gemini-2.5-flash', messages }, { ...h.headers, ...config({ ...fallbackToOpenAI(), retry: { attempts: 1, on_status_codes: [503] } }) });
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('Rate limit reached');
    expect(res.headers.get('x-gateway-retry-attempt-count')).toBe('2');
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    const spans = h.attempts(res.headers.get('traceparent'));
    expect(rows(spans).map((r) => [r.target, r.resend, r.status, r.failed])).toStrictEqual([
      ['config.targets[0]', undefined, 503, true],
      ['config.targets[0]', 1, 500, true],
      ['config.targets[1]', undefined, 429, true],
    ]);
    expect(h.requestSpan(res.headers.get('traceparent')).attributes['gateway.attempts']).toBe(3);
  });

  it('a timeout moves on to the next target; every attempt timing out is a 504', async () => {
    h.emulator.enqueue({ delayMs: 3000 });
    const cfg = { ...fallbackToOpenAI(), targets: [{ provider: 'google', request_timeout: 150 }, fallbackToOpenAI().targets[1]] };
    const { data, response } = await ask(config(cfg));
    expect(data.choices[0]!.message.content).toBe(UPSTREAM_TEXT);
    expect(rows(h.attempts(response.headers.get('traceparent'))).map((r) => [r.error, r.status])).toStrictEqual([
      ['timeout', undefined],
      [undefined, 200],
    ]);

    h.emulator.enqueue({ delayMs: 3000 });
    h.upstream.enqueue({ delayMs: 3000 });
    const err = await failure(ask(config({ ...cfg, request_timeout: 150, targets: [{ provider: 'google' }, fallbackToOpenAI().targets[1]] })));
    expect(err.status).toBe(504);
    expect(err.headers?.get('x-gateway-retry-attempt-count')).toBe('1');
  });
});

describe('loadbalance', () => {
  it('spreads 100 calls by weight (0.7 / 0.3) within ±15 points', async () => {
    const cfg = config({
      strategy: { mode: 'loadbalance' },
      targets: [
        { provider: 'google', weight: 0.7, override_params: { model: 'gemini-2.5-flash' } },
        { provider: 'google', weight: 0.3, override_params: { model: 'gemini-2.5-pro' } },
      ],
    });
    const indexes: string[] = [];
    for (let i = 0; i < 100; i++) {
      const { response } = await ask(cfg);
      indexes.push(response.headers.get('x-gateway-last-used-option-index') ?? '');
    }
    const flash = h.emulator.requests.filter((r) => r.model === 'gemini-2.5-flash').length;
    const pro = h.emulator.requests.filter((r) => r.model === 'gemini-2.5-pro').length;
    expect(flash + pro).toBe(100);
    expect(flash).toBeGreaterThanOrEqual(55);
    expect(flash).toBeLessThanOrEqual(85);
    expect(indexes.filter((i) => i === 'config.targets[0]')).toHaveLength(flash);
  });
});

describe('conditional', () => {
  const cfg = config({
    strategy: {
      mode: 'conditional',
      conditions: [
        { query: { 'metadata.tier': { $eq: 'pro' } }, then: 'pro' },
        { query: { 'params.max_tokens': { $gte: 1000 } }, then: 'long' },
      ],
      default: 'flash',
    },
    targets: [
      { name: 'flash', provider: 'google', override_params: { model: 'gemini-2.5-flash-lite' } },
      { name: 'pro', provider: 'google', override_params: { model: 'gemini-2.5-pro' } },
      { name: 'long', provider: 'openai', api_key: OPENAI_KEY },
    ],
  });

  it.each([
    { name: 'metadata', headers: { 'x-gateway-metadata': JSON.stringify({ tier: 'pro' }) } as Record<string, string>, extra: {}, want: 'config.targets[1]' },
    { name: 'baggage as metadata', headers: { baggage: 'tier=pro' } as Record<string, string>, extra: {}, want: 'config.targets[1]' },
    { name: 'request params', headers: {} as Record<string, string>, extra: { max_tokens: 2000 }, want: 'config.targets[2]' },
    { name: 'default', headers: { 'x-gateway-metadata': JSON.stringify({ tier: 'free' }) } as Record<string, string>, extra: {}, want: 'config.targets[0]' },
  ])('routes on $name', async ({ headers, extra, want }) => {
    const { response } = await ask({ ...cfg, ...headers }, extra);
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe(want);
    const models = [...h.emulator.requests.map((r) => r.model), ...h.upstream.requests.map((r) => r.body.model)];
    expect(models).toStrictEqual([{ 'config.targets[0]': 'gemini-2.5-flash-lite', 'config.targets[1]': 'gemini-2.5-pro', 'config.targets[2]': 'gemini-2.5-flash' }[want]]);
  });
});

describe('override_params', () => {
  // Issue 16: overrides were merged in three places, and the OpenAI upstream dropped a `messages` override.
  it('reach an OpenAI-compatible target merged once, messages included', async () => {
    const override = [
      { role: 'system', content: 'Answer in French.' },
      { role: 'user', content: 'bonjour' },
    ];
    await ask(config({ provider: 'openai', api_key: OPENAI_KEY, override_params: { model: 'gpt-4o-mini', temperature: 0.2, messages: override } }));
    const [up] = h.upstream.requests;
    expect(up!.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2, messages: override });
  });

  it('reach Gemini merged once', async () => {
    await ask(config({ provider: 'google', override_params: { temperature: 0.2, messages: [{ role: 'user', content: 'overridden' }] } }), { temperature: 1 });
    const [req] = h.emulator.requests;
    expect(req!.body).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'overridden' }] }], generationConfig: { temperature: 0.2 } });
  });

  it('a bad override is a 400 naming the field, and nothing goes upstream', async () => {
    const err = await failure(ask(config({ provider: 'google', override_params: { temperature: 'hot' } })));
    expect([err.status, (err.error as { param?: string }).param]).toStrictEqual([400, 'temperature']);
    expect(h.emulator.requests).toHaveLength(0);
  });
});

describe('streaming', () => {
  const stream = (headers: Record<string, string>) =>
    h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages, stream: true }, { headers }).withResponse();

  it('falls back before the first byte (503, then a stream dropped before its first chunk)', async () => {
    for (const fault of [{ status: 503, body: googleError(503, 'overloaded') }, { chunks: [], end: 'drop' as const }]) {
      h.emulator.reset();
      h.upstream.reset();
      h.emulator.enqueue(fault);
      const { data, response } = await stream(config(fallbackToOpenAI()));
      let text = '';
      for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(UPSTREAM_TEXT);
      expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
      const spans = h.attempts(response.headers.get('traceparent'));
      expect(rows(spans).map((r) => [r.provider, r.failed])).toStrictEqual([
        ['gcp.gemini', true],
        ['openai', false],
      ]);
      expect(typeof spans[1]!.attributes['gen_ai.response.time_to_first_chunk']).toBe('number');
    }
  });

  it('never retries or falls back once a chunk reached the client', async () => {
    h.emulator.enqueue({
      chunks: [{ data: { candidates: [{ content: { role: 'model', parts: [{ text: 'partial' }] }, index: 0 }] } }],
      end: 'drop',
    });
    const res = await postChat(
      h,
      { model: 'gemini-2.5-flash', messages, stream: true },
      { ...h.headers, ...config({ ...fallbackToOpenAI(), retry: { attempts: 3 } }) },
    );
    expect(res.status).toBe(200);
    const events = sseData(await res.text());
    expect(events[0]).toContain('partial');
    expect(JSON.parse(events.at(-1)!)).toMatchObject({ error: { type: 'api_error' } });
    expect(events).not.toContain('[DONE]');
    expect(h.emulator.requests).toHaveLength(1);
    expect(h.upstream.requests).toHaveLength(0);
    expect(res.headers.get('x-gateway-retry-attempt-count')).toBe('0');
  });
});

describe('requests the gateway refuses', () => {
  it('an invalid config is a 400 naming the JSON path', async () => {
    const err = await failure(ask(config({ strategy: { mode: 'fallback' }, targets: [{ provider: 'google', retry: { attempts: 9 } }] })));
    expect(err.status).toBe(400);
    expect(err.param).toBe('config.targets[0].retry.attempts');
    expect(err.code).toBe('invalid_config');
    const unknown = await failure(ask(config({ strategy: { mode: 'fallback' }, targets: [{ provider: 'google', colour: 'red' }] })));
    expect(unknown.param).toBe('config.targets[0].colour');
    expect(h.emulator.requests).toHaveLength(0);
  });

  it('a custom host must be on SIDEGATE_CUSTOM_HOSTS', async () => {
    const { data } = await ask({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': h.upstream.url });
    expect(data.choices[0]!.message.content).toBe(UPSTREAM_TEXT);
    expect(h.upstream.requests[0]!.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);

    const header = await failure(ask({ 'x-gateway-custom-host': 'https://llm.example.com' }));
    expect([header.status, header.param, header.code]).toStrictEqual([400, 'x-gateway-custom-host', 'custom_host_not_allowed']);
    const inConfig = await failure(ask(config({ provider: 'google', custom_host: 'http://10.0.0.7:8080' })));
    expect([inConfig.status, inConfig.param]).toStrictEqual([400, 'config.custom_host']);
    expect(h.upstream.requests).toHaveLength(1);
  });
});

describe('large inline media across a fallback', () => {
  it('reach both upstreams byte for byte, Gemini as inlineData and the OpenAI-compatible one as the data URI', async () => {
    const payload = Buffer.alloc(2 * 1024 * 1024, 7).toString('base64');
    const url = `data:image/png;base64,${payload}`;
    h.emulator.enqueue({ status: 503, body: googleError(503, 'The model is overloaded.') });
    const { data } = await h.client.chat.completions
      .create(
        { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url } }] }] },
        { headers: config(fallbackToOpenAI()) },
      )
      .withResponse();
    expect(data.choices[0]!.message.content).toBe(UPSTREAM_TEXT);
    const gemini = h.emulator.requests[0]!.body as { contents: Array<{ parts: unknown[] }> };
    expect(gemini.contents[0]!.parts[1]).toStrictEqual({ inlineData: { mimeType: 'image/png', data: payload } });
    const openai = h.upstream.requests[0]!.body as { messages: Array<{ content: Array<{ image_url?: { url: string } }> }> };
    expect(openai.messages[0]!.content[1]!.image_url!.url).toBe(url);
  });
});
