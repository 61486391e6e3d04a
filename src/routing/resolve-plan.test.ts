import { describe, expect, it } from 'vitest';
import { createRoutingConfigStore } from '../config/routing-config.js';
import type { VirtualKey } from '../keys/virtual-key-store.js';
import { resolvePlan, resolveProviderCredential, type PlanEnvironment } from './resolve-plan.js';

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

async function targetOf(headers: Record<string, string | undefined>) {
  return (await resolvePlan(headers, env)).resolveTarget(undefined);
}

describe('resolvePlan without a config', () => {
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
    await expect(resolvePlan(headers, env)).rejects.toMatchObject(want);
  });

  it('resolveProviderCredential gives the files API the same credential', () => {
    expect(resolveProviderCredential({ 'x-gateway-provider': '@gem' }, env)).toStrictEqual({
      apiKey: 'test-vk-google-key',
      baseUrl: 'https://generativelanguage.googleapis.com',
    });
  });
});

describe('resolvePlan with a config', () => {
  it('parses the config and resolves leaves lazily', async () => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: '@gem' }, { virtual_key: 'missing' }] };
    const plan = await resolvePlan({ 'x-gateway-config': JSON.stringify(config) }, env);
    expect(plan.config?.kind).toBe('group');
    const [first, second] = plan.config?.kind === 'group' ? plan.config.targets : [];
    expect(plan.resolveTarget(first as never).apiKey).toBe('test-vk-google-key');
    expect(() => plan.resolveTarget(second as never)).toThrow(/unknown virtual key @missing/);
  });

  it('an invalid config is a 400 naming the JSON path', async () => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'google' }, { provider: 'google', retry: { attempts: 9 } }] };
    await expect(resolvePlan({ 'x-gateway-config': JSON.stringify(config) }, env)).rejects.toMatchObject({
      status: 400,
      param: 'config.targets[1].retry.attempts',
    });
  });
});
