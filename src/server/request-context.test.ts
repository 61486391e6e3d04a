import { describe, expect, it } from 'vitest';
import { createRoutingConfigStore } from '../config/routing-config.js';
import type { VirtualKey } from '../keys/virtual-key-store.js';
import { resolvePlan, type PlanEnvironment } from '../routing/resolve-plan.js';
import { SpanIdRegistry } from '../telemetry/span-id-registry.js';
import { createContextPropagator, readRequestContext, type RequestContextEnv } from './request-context.js';

// Obviously fake credentials.
const KEYS: Record<string, VirtualKey> = {
  gem: { slug: 'gem', provider: 'google', apiKey: 'test-vk-google-key' },
  oai: { slug: 'oai', provider: 'openai', apiKey: 'test-vk-openai-key', customHost: 'https://llm.internal.example' },
};

const env: PlanEnvironment = {
  configs: createRoutingConfigStore({}),
  virtualKeys: { get: (slug) => KEYS[slug] },
  baseUrls: { google: 'https://generativelanguage.googleapis.com', openai: 'https://api.openai.com' },
  customHosts: ['localhost', '127.0.0.1'],
  timeoutMs: 30_000,
};

const contextEnv = (): RequestContextEnv => ({
  configs: env.configs,
  timeoutMs: env.timeoutMs,
  spanIds: new SpanIdRegistry(),
  propagator: createContextPropagator(),
});

/** Header parsing (the request context) then the plan, as the server runs them. */
async function planOf(headers: Record<string, string | undefined>, cEnv = contextEnv()) {
  return resolvePlan(await readRequestContext(headers, cEnv), env);
}

async function targetOf(headers: Record<string, string | undefined>) {
  return (await planOf(headers)).resolveTarget(undefined);
}

describe('request context and plan without a config', () => {
  it.each([
    {
      name: 'provider and Authorization',
      headers: { 'x-gateway-provider': 'google', authorization: 'Bearer test-raw-key' },
      want: { provider: 'google', apiKey: 'test-raw-key', baseUrl: 'https://generativelanguage.googleapis.com', strictCompliance: true, timeoutMs: 30_000 },
    },
    {
      name: '@slug',
      headers: { 'x-gateway-provider': '@gem' },
      want: { provider: 'google', apiKey: 'test-vk-google-key', baseUrl: 'https://generativelanguage.googleapis.com', strictCompliance: true, timeoutMs: 30_000 },
    },
    {
      name: 'x-gateway-virtual-key overrides @slug, with the key’s own host',
      headers: { 'x-gateway-provider': '@gem', 'x-gateway-virtual-key': 'oai', authorization: 'Bearer ignored' },
      want: { provider: 'openai', apiKey: 'test-vk-openai-key', baseUrl: 'https://llm.internal.example', strictCompliance: true, timeoutMs: 30_000 },
    },
    {
      name: 'portkey aliases, custom host on the allow-list, strict off, timeout',
      headers: {
        'x-portkey-provider': 'openai',
        authorization: 'test-raw-key',
        'x-portkey-custom-host': 'http://127.0.0.1:8000/v1/',
        'x-portkey-strict-open-ai-compliance': 'false',
        'x-portkey-request-timeout': '1500',
      },
      want: { provider: 'openai', apiKey: 'test-raw-key', baseUrl: 'http://127.0.0.1:8000/v1', strictCompliance: false, timeoutMs: 1500 },
    },
  ])('$name', async ({ headers, want }) => {
    expect(await targetOf(headers)).toStrictEqual(want);
  });

  it.each([
    { name: 'unknown slug names it', headers: { 'x-gateway-provider': '@nope' }, want: { status: 401, message: 'unknown virtual key @nope' } },
    { name: 'no provider', headers: { authorization: 'k' }, want: { status: 400, param: 'x-gateway-provider' } },
    { name: 'unsupported provider', headers: { 'x-gateway-provider': 'azure', authorization: 'k' }, want: { status: 400, code: 'unsupported_provider' } },
    { name: 'no key', headers: { 'x-gateway-provider': 'google' }, want: { status: 401, code: 'missing_provider_key' } },
    {
      name: 'custom host off the allow-list',
      headers: { 'x-gateway-provider': 'google', authorization: 'k', 'x-gateway-custom-host': 'https://evil.example' },
      want: { status: 400, param: 'x-gateway-custom-host', code: 'custom_host_not_allowed' },
    },
    {
      name: 'bad timeout',
      headers: { 'x-gateway-provider': 'google', authorization: 'k', 'x-gateway-request-timeout': 'soon' },
      want: { status: 400, param: 'x-gateway-request-timeout' },
    },
  ])('refuses: $name', async ({ headers, want }) => {
    await expect(planOf(headers)).rejects.toMatchObject(want);
  });
});

describe('request context and plan with a config', () => {
  it('parses the config and resolves leaves lazily', async () => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: '@gem' }, { virtual_key: 'missing' }] };
    const plan = await planOf({ 'x-gateway-config': JSON.stringify(config) });
    expect(plan.config?.kind).toBe('group');
    const [first, second] = plan.config?.kind === 'group' ? plan.config.targets : [];
    expect(plan.resolveTarget(first as never).apiKey).toBe('test-vk-google-key');
    expect(() => plan.resolveTarget(second as never)).toThrow(/unknown virtual key @missing/);
  });

  it('an invalid config is a 400 naming the JSON path', async () => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'google' }, { provider: 'google', retry: { attempts: 9 } }] };
    await expect(planOf({ 'x-gateway-config': JSON.stringify(config) })).rejects.toMatchObject({
      status: 400,
      param: 'config.targets[1].retry.attempts',
    });
  });
});

describe('request context: metadata and trace ids', () => {
  const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('merges baggage (URL-decoded) under x-gateway-metadata, which wins', async () => {
    const ctx = await readRequestContext(
      { baggage: 'tier=gold,team=a%20b', 'x-gateway-metadata': JSON.stringify({ tier: 'free', user: 'u1' }) },
      contextEnv(),
    );
    expect(ctx.metadata).toStrictEqual({ tier: 'free', team: 'a b', user: 'u1' });
    expect(Object.isFrozen(ctx.metadata)).toBe(true);
  });

  it.each([
    { name: 'not JSON', headers: { 'x-gateway-metadata': '{nope' }, param: 'x-gateway-metadata' },
    { name: 'a non-string value', headers: { 'x-gateway-metadata': '{"n":1}' }, param: 'x-gateway-metadata' },
    { name: 'portkey alias, an array', headers: { 'x-portkey-metadata': '[]' }, param: 'x-gateway-metadata' },
    { name: 'oversized baggage', headers: { baggage: `k=${'v'.repeat(9000)}` }, param: 'baggage' },
  ])('refuses metadata: $name', async ({ headers, param }) => {
    // Synchronously (no config to look up), which a caller's `await` sees as a rejection.
    await expect(async () => readRequestContext(headers, contextEnv())).rejects.toMatchObject({ status: 400, param });
  });

  it('a new trace gets fresh valid ids', async () => {
    const { trace } = await readRequestContext({}, contextEnv());
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(trace.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(trace.traceFlags).toBe(1);
    expect(trace.parent).toBeUndefined();
  });

  it('new ids stay distinct across refills of the random pool', async () => {
    // 500 requests draw 12,000 random bytes: the 4 KiB pool is refilled twice on the way.
    const env = contextEnv();
    const ids = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const { trace } = await readRequestContext({}, env);
      expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(trace.spanId).toMatch(/^[0-9a-f]{16}$/);
      ids.add(trace.traceId).add(trace.spanId);
    }
    expect(ids.size).toBe(1000);
  });

  it('traceparent: same trace, filed under its parent, flags kept', async () => {
    const { trace } = await readRequestContext({ traceparent: TRACEPARENT.replace(/01$/, '00') }, contextEnv());
    expect(trace.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(trace.parent?.spanId).toBe('b7ad6b7169203331');
    expect(trace.spanId).not.toBe('b7ad6b7169203331');
    expect(trace.traceFlags).toBe(0);
  });

  it('x-gateway ids win, a non-hex trace id is mapped and kept', async () => {
    const { trace } = await readRequestContext(
      { traceparent: TRACEPARENT, 'x-gateway-trace-id': 'my-trace', 'x-gateway-span-id': 'my-span', 'x-gateway-span-name': ' step ' },
      contextEnv(),
    );
    expect(trace.clientTraceId).toBe('my-trace');
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(trace.traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(trace.clientSpanId).toBe('my-span');
    expect(trace.spanName).toBe('step');
  });

  it('a span id used twice in a trace gets a fresh id the second time, linked to the first (Decision 1)', async () => {
    const cEnv = contextEnv();
    const headers = { 'x-gateway-trace-id': 'a'.repeat(32), 'x-gateway-span-id': 'b'.repeat(16) };
    const first = (await readRequestContext(headers, cEnv)).trace;
    const second = (await readRequestContext(headers, cEnv)).trace;
    expect(first.spanId).toBe('b'.repeat(16));
    expect(first.reusedSpanId).toBeUndefined();
    expect(second.spanId).not.toBe('b'.repeat(16));
    expect(second.reusedSpanId).toBe('b'.repeat(16));
  });
});
