import { describe, expect, it } from 'vitest';
import { parseRoutingConfig, type ConfigGroup, type ConfigTarget } from '../config/routing-config.js';
import type { VirtualKey } from '../keys/virtual-key-store.js';
import { resolveTarget, type RequestCredentials, type TargetEnvironment } from './resolve-target.js';

const keys: Record<string, VirtualKey> = {
  gem: { slug: 'gem', provider: 'google', apiKey: 'vk-google' },
  local: { slug: 'local', provider: 'openai', apiKey: 'vk-openai', customHost: 'http://10.0.0.5:8000' },
};
const env: TargetEnvironment = {
  virtualKeys: { get: (slug) => keys[slug] },
  baseUrls: { google: 'https://generativelanguage.googleapis.com', openai: 'https://api.openai.com' },
  customHosts: ['localhost', '127.0.0.1', '::1'],
};
const creds: RequestCredentials = { provider: 'google', apiKey: 'header-key', strictCompliance: true, timeoutMs: 600_000 };
const leaf = (config: unknown, i?: number): ConfigTarget => {
  const parsed = parseRoutingConfig(config);
  return (i === undefined ? parsed : (parsed as ConfigGroup).targets[i]) as ConfigTarget;
};

describe('resolveTarget', () => {
  it.each<{ name: string; node?: ConfigTarget; creds?: Partial<RequestCredentials>; want: unknown }>([
    {
      name: 'no config: headers only',
      want: { provider: 'google', apiKey: 'header-key', baseUrl: 'https://generativelanguage.googleapis.com', strictCompliance: true, timeoutMs: 600_000 },
    },
    {
      name: 'header virtual key',
      creds: { provider: undefined, apiKey: undefined, virtualKey: 'local' },
      want: { provider: 'openai', apiKey: 'vk-openai', baseUrl: 'http://10.0.0.5:8000', strictCompliance: true, timeoutMs: 600_000 },
    },
    {
      name: 'config target with virtual key, overrides, timeout and strictness',
      node: leaf({ virtual_key: 'gem', override_params: { model: 'gemini-2.5-pro', temperature: 0 }, request_timeout: 3000, strict_compliance: false }),
      want: {
        provider: 'google',
        apiKey: 'vk-google',
        baseUrl: 'https://generativelanguage.googleapis.com',
        model: 'gemini-2.5-pro',
        overrideParams: { model: 'gemini-2.5-pro', temperature: 0 },
        strictCompliance: false,
        timeoutMs: 3000,
      },
    },
    {
      name: 'config api_key wins over the header virtual key',
      node: leaf({ provider: 'openai', api_key: 'cfg-key', custom_host: 'http://localhost:9000/' }),
      creds: { virtualKey: 'gem' },
      want: { provider: 'openai', apiKey: 'cfg-key', baseUrl: 'http://localhost:9000', strictCompliance: true, timeoutMs: 600_000 },
    },
    {
      name: 'settings-only config uses header credentials and header host',
      node: leaf({ retry: { attempts: 2 } }),
      creds: { customHost: 'http://127.0.0.1:7000' },
      want: { provider: 'google', apiKey: 'header-key', baseUrl: 'http://127.0.0.1:7000', strictCompliance: true, timeoutMs: 600_000 },
    },
  ])('$name', ({ node, creds: c, want }) => {
    expect(resolveTarget(node, { ...creds, ...c }, env)).toStrictEqual(want);
  });

  it.each<{ name: string; node?: ConfigTarget; creds?: Partial<RequestCredentials>; want: object }>([
    {
      name: 'unknown slug in the config → 401 naming it',
      node: leaf({ strategy: { mode: 'fallback' }, targets: [{}, { virtual_key: 'nope' }] }, 1),
      want: { status: 401, message: 'unknown virtual key @nope', param: 'config.targets[1].virtual_key' },
    },
    { name: 'unknown slug in the header', creds: { virtualKey: 'ghost' }, want: { status: 401, message: 'unknown virtual key @ghost' } },
    {
      name: 'a key pasted as a slug is not echoed',
      creds: { virtualKey: 'AIzaSyTHISISNOTAREALKEY0000000000000' },
      want: { status: 401, message: 'unknown virtual key' },
    },
    { name: 'no provider anywhere', creds: { provider: undefined }, want: { status: 400, code: 'missing_provider' } },
    { name: 'no key anywhere', creds: { apiKey: undefined }, want: { status: 401, code: 'missing_provider_key' } },
    {
      name: 'config custom host off the allow-list',
      node: leaf({ custom_host: 'http://169.254.169.254' }),
      want: { status: 400, code: 'custom_host_not_allowed', param: 'config.custom_host' },
    },
    {
      name: 'header custom host off the allow-list',
      creds: { customHost: 'https://evil.example' },
      want: { status: 400, code: 'custom_host_not_allowed', param: 'x-gateway-custom-host' },
    },
  ])('$name', ({ node, creds: c, want }) => {
    expect(() => resolveTarget(node, { ...creds, ...c }, env)).toThrow(expect.objectContaining(want));
  });

  it('accepts host:port and IPv6 allow-list entries', () => {
    const e = { ...env, customHosts: ['gw.internal:8443', '::1'] };
    expect(resolveTarget(undefined, { ...creds, customHost: 'https://gw.internal:8443' }, e).baseUrl).toBe('https://gw.internal:8443');
    expect(resolveTarget(undefined, { ...creds, customHost: 'http://[::1]:9' }, e).baseUrl).toBe('http://[::1]:9');
    expect(() => resolveTarget(undefined, { ...creds, customHost: 'https://gw.internal' }, e)).toThrow(/not allowed/);
  });
});
