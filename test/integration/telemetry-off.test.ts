/**
 * DESIGN Decision 18: telemetry decides nothing. The same routing and validation cases run
 * against two gateways, one with the real OTel SDK and one with `OTEL_SDK_DISABLED=true`; every
 * answer (status, body, headers) and every upstream request must be the same. Issue 16 item 1:
 * with telemetry off, a malformed `x-gateway-metadata` got 200, conditional routing on metadata
 * (header or `baggage`) took the default target, and `x-gateway-trace-id` was not echoed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleError } from '../../src/emulator/index.js';
import { GATEWAY_KEY, PROVIDER_KEY } from './harness.js';
import { config, geminiText, startRoutingHarness, type RoutingHarness } from './routing/routing-harness.js';

const OPENAI_KEY = 'test-openai-compatible-key';
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

let on: RoutingHarness;
let off: RoutingHarness;
beforeAll(async () => {
  [on, off] = await Promise.all([startRoutingHarness(), startRoutingHarness({}, { telemetry: 'off' })]);
});
afterAll(async () => {
  await Promise.all([on.close(), off.close()]);
});
beforeEach(() => {
  on.reset();
  off.reset();
});

const conditional = config({
  strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.tier': { $eq: 'pro' } }, then: 'pro' }], default: 'flash' },
  targets: [
    { name: 'flash', provider: 'google', override_params: { model: 'gemini-2.5-flash-lite' } },
    { name: 'pro', provider: 'openai', api_key: OPENAI_KEY },
  ],
});
const fallback = config({
  strategy: { mode: 'fallback' },
  targets: [{ provider: 'google' }, { provider: 'openai', api_key: OPENAI_KEY, override_params: { model: 'gpt-4o-mini' } }],
});

interface Case {
  name: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Scripted upstream replies, enqueued on each gateway's emulator. */
  gemini?: Parameters<RoutingHarness['emulator']['enqueue']>;
  want: {
    status: number;
    param?: string;
    target?: string;
    traceId?: string | RegExp;
    upstream?: 'gemini' | 'openai' | 'none';
    /** `x-gateway-skipped-targets` */
    skipped?: string;
    code?: string;
  };
}

const ask = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'hello' }] };

const cases: Case[] = [
  // A new trace: the echoed id is the response traceparent's (checked in `observe`).
  { name: 'a plain chat completion', want: { status: 200, upstream: 'gemini', traceId: '<new>' } },
  { name: 'a streamed chat completion', body: { ...ask, stream: true }, want: { status: 200, upstream: 'gemini' } },
  {
    name: 'malformed x-gateway-metadata is a 400',
    headers: { 'x-gateway-metadata': '{not json' },
    want: { status: 400, param: 'x-gateway-metadata', upstream: 'none' },
  },
  {
    name: 'x-portkey-metadata that is not an object of strings is a 400',
    headers: { 'x-portkey-metadata': '{"tier":1}' },
    want: { status: 400, param: 'x-gateway-metadata', upstream: 'none' },
  },
  {
    name: 'conditional routing on metadata.tier from x-gateway-metadata',
    headers: { ...conditional, 'x-gateway-metadata': JSON.stringify({ tier: 'pro' }) },
    want: { status: 200, target: 'config.targets[1]', upstream: 'openai' },
  },
  {
    name: 'conditional routing on metadata.tier from baggage',
    headers: { ...conditional, baggage: 'tier=pro' },
    want: { status: 200, target: 'config.targets[1]', upstream: 'openai' },
  },
  {
    name: 'conditional routing default',
    headers: { ...conditional, baggage: 'tier=free' },
    want: { status: 200, target: 'config.targets[0]', upstream: 'gemini' },
  },
  { name: 'x-gateway-trace-id is echoed', headers: { 'x-gateway-trace-id': 'checkout-42' }, want: { status: 200, traceId: 'checkout-42' } },
  { name: 'traceparent names the trace', headers: { traceparent: TRACEPARENT }, want: { status: 200, traceId: '0af7651916cd43dd8448eb211c80319c' } },
  {
    name: 'fallback after a 503',
    headers: fallback,
    gemini: [{ status: 503, body: googleError(503, 'overloaded') }],
    want: { status: 200, target: 'config.targets[1]', upstream: 'openai' },
  },
  { name: 'an invalid body', body: { model: 'gemini-2.5-flash', messages: [] }, want: { status: 400, param: 'messages', upstream: 'none' } },
  { name: 'no provider key', headers: { authorization: '' }, want: { status: 401, upstream: 'none' } },
  { name: 'portkey headers are mirrored', headers: { 'x-portkey-trace-id': 'pk-1' }, want: { status: 200, traceId: 'pk-1' } },
  // Last, since it opens the target's circuit breaker for 7 s (issue 24).
  {
    name: 'an upstream 429 with its Retry-After',
    gemini: [{ status: 429, body: googleError(429, 'quota'), headers: { 'retry-after': '7' } }],
    want: { status: 429 },
  },
  {
    name: 'then that target cools down: 503 at once, nothing sent upstream',
    want: { status: 503, upstream: 'none', skipped: '1', code: 'all_targets_cooling_down' },
  },
];

/** What a client and the upstreams saw, minus what is random per call (ids, timestamps, span ids). */
async function observe(h: RoutingHarness, c: Case) {
  if (c.gemini) h.emulator.enqueue(...c.gemini);
  else h.emulator.enqueue({ status: 200, body: geminiText('hi') });
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-gateway-api-key': GATEWAY_KEY,
    'x-gateway-provider': 'google',
    authorization: `Bearer ${PROVIDER_KEY}`,
    ...c.headers,
  };
  if (headers.authorization === '') delete headers.authorization;
  const res = await fetch(`${h.gateway.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(c.body ?? ask) });
  const text = await res.text();
  const traceparent = res.headers.get('traceparent');
  // A trace the gateway started has a random id: the same on both headers, named `<new>` here.
  const traceId = traceparent?.split('-')[1];
  const fresh = traceId !== undefined && !JSON.stringify(c.headers ?? {}).includes(traceId) ? traceId : undefined;
  const shown: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!['date', 'traceparent', 'content-length'].includes(name)) shown[name] = fresh === undefined ? value : value.replace(fresh, '<new>');
  });
  return {
    status: res.status,
    body: text.replace(/"(id|created)":("[^"]*"|\d+)/g, '"$1":"*"'),
    headers: shown,
    // The span id is new per call; its shape and trace id are the contract.
    traceparent: traceparent?.replace(/^00-([0-9a-f]{32})-[0-9a-f]{16}-(0[01])$/, '00-$1-*-$2').replace(fresh ?? '<none>', '<new>') ?? null,
    gemini: h.emulator.requests.map((r) => ({ model: r.model, body: r.body })),
    openai: h.upstream.requests.map((r) => ({ path: r.path, body: r.body })),
  };
}

describe('the same answers with telemetry on and off', () => {
  it.each(cases)('$name', async (c) => {
    const withSdk = await observe(on, c);
    const without = await observe(off, c);
    expect(without).toStrictEqual(withSdk);
    // And the answer is the right one (not merely the same wrong one twice).
    for (const seen of [withSdk, without]) {
      expect(seen.status).toBe(c.want.status);
      if (c.want.param !== undefined) expect(JSON.parse(seen.body).error.param).toBe(c.want.param);
      if (c.want.target !== undefined) expect(seen.headers['x-gateway-last-used-option-index']).toBe(c.want.target);
      if (c.want.upstream === 'none') expect([seen.gemini.length, seen.openai.length]).toStrictEqual([0, 0]);
      if (c.want.upstream === 'openai') expect(seen.openai).toHaveLength(1);
      if (c.want.upstream === 'gemini') expect([seen.gemini.length, seen.openai.length]).toStrictEqual([1, 0]);
      if (c.want.traceId !== undefined) expect(seen.headers['x-gateway-trace-id']).toMatch(c.want.traceId);
      if (c.want.skipped !== undefined) expect(seen.headers['x-gateway-skipped-targets']).toBe(c.want.skipped);
      if (c.want.code !== undefined) expect(JSON.parse(seen.body).error.code).toBe(c.want.code);
      if (seen.status === 200) expect(seen.traceparent).toMatch(/^00-([0-9a-f]{32}|<new>)-\*-01$/);
    }
    if (c.headers?.['x-portkey-trace-id'] !== undefined) expect(without.headers['x-portkey-trace-id']).toBe(c.headers['x-portkey-trace-id']);
  });

  it('only the export differs: spans with the SDK, none without', async () => {
    await observe(on, cases[0]!);
    await observe(off, cases[0]!);
    expect(on.exporter.getFinishedSpans().length).toBeGreaterThan(0);
    expect(off.exporter.getFinishedSpans()).toHaveLength(0);
  });
});
