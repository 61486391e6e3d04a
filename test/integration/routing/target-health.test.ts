/**
 * Target health end to end (issue 24): the official `openai` SDK → gateway → Gemini emulator
 * (target A) and an OpenAI-compatible upstream (fallback B), with the real OTel SDK. Asserts what
 * the client got (status, code, Retry-After, x-gateway-skipped-targets), what each upstream
 * received, the spans (a skip is an event on the request span, a probe an attempt span marked
 * gateway.breaker.probe, a budget refusal on the last attempt) and the metrics on /metrics.
 *
 * The suite shares one gateway, so each test names its own target A by its own key (a target is
 * provider, base URL, model and credential).
 */
import { SpanKind } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleError } from '../../../src/emulator/index.js';
import { UPSTREAM_TEXT } from './openai-upstream.js';
import { config, geminiText, startRoutingHarness, type RoutingHarness } from './routing-harness.js';

// Obviously fake credentials, one per test's target A.
const OPENAI_KEY = 'test-openai-compatible-key';
const keyOf = (name: string) => `test-target-key-${name}`;

let h: RoutingHarness;
beforeAll(async () => {
  h = await startRoutingHarness();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'hello' }];
const ask = (headers: Record<string, string>) =>
  h.client.chat.completions.create({ model: 'gemini-2.5-flash', messages }, { headers }).withResponse();
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * The probe tests' cooldown is 1 s, spread ±20 %: long enough that the call after a failure lands
 * inside it even on a stalled CI machine (200 ms, spread to as little as 160, left little room),
 * and this wait is past its longest spread.
 */
const COOLDOWN_PASSED_MS = 1_300;

/** A (Gemini, its own key) falling back to B (OpenAI-compatible). */
const aThenB = (name: string, breaker: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  config({
    strategy: { mode: 'fallback' },
    circuit_breaker: breaker,
    ...extra,
    targets: [
      { provider: 'google', api_key: keyOf(name) },
      { provider: 'openai', api_key: OPENAI_KEY, override_params: { model: 'gpt-4o-mini' } },
    ],
  });
const overloaded = { status: 503, body: googleError(503, 'The model is overloaded.') };

describe('skip to fallback', () => {
  it('an open target is skipped: no attempt, straight to B, an event on the request span, the count in a header', async () => {
    const headers = aThenB('skip', { failure_threshold: 2, cooldown_ms: 60_000 });
    h.emulator.enqueue(overloaded, overloaded);
    for (let i = 0; i < 2; i++) expect((await ask(headers)).data.choices[0]!.message.content).toBe(UPSTREAM_TEXT);
    expect(h.emulator.requests).toHaveLength(2);
    h.reset();

    // Portkey's dialect, to see the mirrored header too.
    const { data, response } = await ask({ ...headers, 'x-portkey-trace-id': 'skip-1' });
    expect(data.choices[0]!.message.content).toBe(UPSTREAM_TEXT);
    expect(h.emulator.requests).toHaveLength(0);
    expect(h.upstream.requests).toHaveLength(1);
    expect(response.headers.get('x-gateway-skipped-targets')).toBe('1');
    expect(response.headers.get('x-portkey-skipped-targets')).toBe('1');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('0');

    const tp = response.headers.get('traceparent');
    expect(h.attempts(tp).map((s) => s.attributes['gateway.target.index'])).toStrictEqual(['config.targets[1]']);
    const request = h.requestSpan(tp);
    expect(request.attributes['gateway.targets_skipped']).toBe(1);
    expect(request.attributes['gateway.attempts']).toBe(1);
    const events = request.events.filter((e) => e.name === 'target_skipped');
    expect(events).toHaveLength(1);
    const { 'gateway.skip.retry_in_ms': retryIn, 'gateway.target.credential': credential, ...rest } = events[0]!.attributes!;
    expect(rest).toStrictEqual({
      'gen_ai.provider.name': 'gcp.gemini',
      'gen_ai.request.model': 'gemini-2.5-flash',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(h.emulator.url).port),
      'gateway.skip.reason': 'cooling_down',
      'gateway.target.index': 'config.targets[0]',
    });
    expect(retryIn).toBeGreaterThan(0);
    expect(credential).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(h.exporter.getFinishedSpans().map((s) => [s.attributes, s.events]))).not.toContain(keyOf('skip'));
  });

  it('a config with retries does not spend them on a target that is down once it opens', async () => {
    const headers = aThenB('retries', { failure_threshold: 2, cooldown_ms: 60_000 }, { retry: { attempts: 3, use_retry_after_header: true } });
    // 500 with Retry-After 0: retried at once (no backoff wait), counted as plain failures.
    const fast500 = { status: 500, body: googleError(500, 'Internal error encountered.'), headers: { 'retry-after': '0' } };
    h.emulator.enqueue(...Array.from({ length: 8 }, () => fast500));
    const { response } = await ask(headers);
    // Try, one retry, then the breaker is open: the other two retries are not sent; B answers.
    expect(h.emulator.requests).toHaveLength(2);
    expect(h.upstream.requests).toHaveLength(1);
    expect(response.headers.get('x-gateway-retry-attempt-count')).toBe('2');
    expect(response.headers.get('x-gateway-skipped-targets')).toBeNull();
  });
});

describe('fail fast', () => {
  it('no target left: 503 all_targets_cooling_down with Retry-After, nothing sent; /readyz stays ready', async () => {
    const headers = config({ provider: 'google', api_key: keyOf('fail-fast') });
    h.emulator.enqueue({ status: 429, body: googleError(429, 'Quota exceeded.'), headers: { 'retry-after': '30' } });
    expect((await failure(ask(headers))).status).toBe(429);
    h.reset();

    const err = await failure(ask(headers));
    expect(err.status).toBe(503);
    expect(err.code).toBe('all_targets_cooling_down');
    expect(err.type).toBe('api_error');
    expect(Number(err.headers?.get('retry-after'))).toBeGreaterThanOrEqual(29);
    expect(Number(err.headers?.get('retry-after'))).toBeLessThanOrEqual(30);
    expect(err.headers?.get('x-gateway-skipped-targets')).toBe('1');
    expect(h.emulator.requests).toHaveLength(0);

    const tp = err.headers?.get('traceparent') ?? null;
    expect(h.attempts(tp)).toHaveLength(0);
    const request = h.requestSpan(tp);
    expect(request.attributes['http.response.status_code']).toBe(503);
    expect(request.attributes['gateway.targets_skipped']).toBe(1);
    expect(request.events.map((e) => e.name)).toContain('target_skipped');

    const ready = await fetch(`${h.gateway.url}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('on_all_open "try": the last target is tried anyway', async () => {
    const headers = config({ provider: 'google', api_key: keyOf('try'), circuit_breaker: { on_all_open: 'try' } });
    h.emulator.enqueue({ status: 429, body: googleError(429, 'Quota exceeded.'), headers: { 'retry-after': '30' } });
    await failure(ask(headers));
    h.emulator.enqueue({ status: 200, body: geminiText('tried anyway') });
    const { data, response } = await ask(headers);
    expect(data.choices[0]!.message.content).toBe('tried anyway');
    expect(response.headers.get('x-gateway-skipped-targets')).toBeNull();
  });
});

describe('the probe', () => {
  it('after the cooldown one request goes to A as the probe; its success closes the breaker', async () => {
    const headers = aThenB('probe', { failure_threshold: 1, cooldown_ms: 1_000, max_cooldown_ms: 1_000 });
    h.emulator.enqueue(overloaded);
    await ask(headers);
    expect((await ask(headers)).response.headers.get('x-gateway-skipped-targets')).toBe('1');
    await sleep(COOLDOWN_PASSED_MS);
    h.reset();

    h.emulator.enqueue({ status: 200, body: geminiText('A is back') });
    const { data, response } = await ask(headers);
    expect(data.choices[0]!.message.content).toBe('A is back');
    const probe = h.attempts(response.headers.get('traceparent'));
    expect(probe).toHaveLength(1);
    expect(probe[0]!.kind).toBe(SpanKind.CLIENT);
    expect(probe[0]!.attributes['gateway.breaker.probe']).toBe(true);
    expect(probe[0]!.attributes['gateway.target.index']).toBe('config.targets[0]');

    // Closed again: the next request is an ordinary attempt on A.
    const next = await ask(headers);
    expect(h.emulator.requests).toHaveLength(2);
    expect(h.attempts(next.response.headers.get('traceparent'))[0]!.attributes['gateway.breaker.probe']).toBeUndefined();
  });

  it('a failed probe: the attempt span is marked, B answers, A is skipped again', async () => {
    const headers = aThenB('probe-fails', { failure_threshold: 1, cooldown_ms: 1_000, max_cooldown_ms: 60_000 });
    h.emulator.enqueue(overloaded);
    await ask(headers);
    await sleep(COOLDOWN_PASSED_MS);
    h.emulator.enqueue(overloaded);
    const { response } = await ask(headers);
    expect(
      h.attempts(response.headers.get('traceparent')).map((s) => [s.attributes['gateway.target.index'], s.attributes['gateway.breaker.probe'], s.attributes['error.type']]),
    ).toStrictEqual([
      ['config.targets[0]', true, '503'],
      ['config.targets[1]', undefined, undefined],
    ]);
    // The next cooldown is twice as long (1.6–2.4 s): still skipped now.
    expect((await ask(headers)).response.headers.get('x-gateway-skipped-targets')).toBe('1');
  });
});

describe('load-balanced targets', () => {
  it('an open target gets no share until it closes', async () => {
    const headers = config({
      strategy: { mode: 'loadbalance' },
      targets: [
        { provider: 'google', api_key: keyOf('lb'), weight: 1 },
        { provider: 'openai', api_key: OPENAI_KEY, override_params: { model: 'gpt-4o-mini' }, weight: 1 },
      ],
    });
    h.emulator.enqueue({ status: 429, body: googleError(429, 'Quota exceeded.'), headers: { 'retry-after': '30' } });
    // Until a pick lands on A (each pick is 50/50) and A's 429 opens its breaker.
    for (let i = 0; i < 60 && h.emulator.requests.length === 0; i++) await ask(headers).catch(() => undefined);
    expect(h.emulator.requests).toHaveLength(1);
    h.reset();
    for (let i = 0; i < 20; i++) {
      const { response } = await ask(headers);
      expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
      // Not picked, so not skipped either.
      expect(response.headers.get('x-gateway-skipped-targets')).toBeNull();
    }
    expect(h.emulator.requests).toHaveLength(0);
    expect(h.upstream.requests).toHaveLength(20);
  });
});

describe('the retry budget', () => {
  it('a retry over budget is not sent: marked on the last attempt span, fallback still applies', async () => {
    // budget_percent 0 leaves the floor: 30 retries per 10 s toward this target.
    const headers = aThenB('budget', { failure_threshold: 1000 }, { retry: { attempts: 5, use_retry_after_header: true, budget_percent: 0 } });
    const fast500 = { status: 500, body: googleError(500, 'Internal error encountered.'), headers: { 'retry-after': '0' } };
    h.emulator.enqueue(...Array.from({ length: 60 }, () => fast500));
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await ask(headers));
    // 7 first tries + 30 retries, then the budget refuses.
    expect(h.emulator.requests).toHaveLength(37);
    expect(h.upstream.requests).toHaveLength(7);
    const last = h.attempts(answers[6]!.response.headers.get('traceparent'));
    expect(last.map((s) => [s.attributes['gateway.target.index'], s.attributes['gateway.retry_budget_exhausted']])).toStrictEqual([
      ['config.targets[0]', true],
      ['config.targets[1]', undefined],
    ]);
  });
});

describe('metrics', () => {
  it('/metrics: the state gauge per target, skips and budget refusals as counters', async () => {
    const text = await (await fetch(`${h.gateway.url}/metrics`)).text();
    const lines = (name: string) => text.split('\n').filter((l) => l.startsWith(name));
    // 2 open, 0 closed; A of the fail-fast test cools down for 30 s.
    expect(lines('sidegate_breaker_state{').some((l) => l.endsWith(' 2'))).toBe(true);
    expect(lines('sidegate_breaker_state{').some((l) => l.endsWith(' 0'))).toBe(true);
    expect(lines('sidegate_breaker_state{').every((l) => l.includes('gateway_target_credential="') && l.includes('gen_ai_provider_name="'))).toBe(true);
    const skips = lines('sidegate_breaker_skips_total{').filter((l) => l.includes('gateway_skip_reason="cooling_down"'));
    expect(skips.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0)).toBeGreaterThanOrEqual(4);
    const refusals = lines('sidegate_retry_budget_refusals_total{');
    expect(refusals.reduce((n, l) => n + Number(l.split(' ').at(-1)), 0)).toBeGreaterThanOrEqual(1);
    for (const name of ['skip', 'fail-fast', 'budget', 'probe']) expect(text).not.toContain(keyOf(name));
  });
});
