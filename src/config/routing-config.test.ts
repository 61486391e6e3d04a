import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors.js';
import {
  createRoutingConfigStore,
  DEFAULT_RETRY_STATUS_CODES,
  parseRoutingConfig,
  type ConfigGroup,
  type ConfigTarget,
} from './routing-config.js';

const noRetry = { attempts: 0, onStatusCodes: DEFAULT_RETRY_STATUS_CODES, useRetryAfterHeader: false };

function thrown(fn: () => unknown): InvalidRequestError {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidRequestError) return err;
    throw err;
  }
  throw new Error('expected an InvalidRequestError');
}

describe('parseRoutingConfig', () => {
  it('parses a single target with defaults', () => {
    expect(parseRoutingConfig({ provider: 'google', api_key: 'test-key' })).toStrictEqual({
      kind: 'target',
      path: 'config',
      weight: 1,
      overrideParams: {},
      retry: noRetry,
      provider: 'google',
      apiKey: 'test-key',
    });
  });

  it('accepts a JSON string', () => {
    expect(parseRoutingConfig('{"virtual_key":"gem"}')).toStrictEqual({
      kind: 'target',
      path: 'config',
      weight: 1,
      overrideParams: {},
      retry: noRetry,
      virtualKey: 'gem',
    });
  });

  it('accepts a settings-only config (credentials come from the headers)', () => {
    const config = parseRoutingConfig({ retry: { attempts: 3 }, request_timeout: 5000 });
    expect(config).toStrictEqual({
      kind: 'target',
      path: 'config',
      weight: 1,
      overrideParams: {},
      retry: { attempts: 3, onStatusCodes: [429, 500, 502, 503, 504], useRetryAfterHeader: false },
      requestTimeoutMs: 5000,
    });
  });

  it('inherits outer settings, inner ones win, override_params merge', () => {
    const config = parseRoutingConfig({
      strategy: { mode: 'fallback', on_status_codes: [429, 503] },
      retry: { attempts: 2, use_retry_after_header: true },
      request_timeout: 10_000,
      custom_host: 'http://127.0.0.1:9000',
      strict_compliance: false,
      override_params: { temperature: 0.1, max_tokens: 50 },
      targets: [
        { virtual_key: 'gem', override_params: { model: 'gemini-2.5-flash', temperature: 0.5 } },
        {
          strategy: { mode: 'loadbalance' },
          retry: { attempts: 1, on_status_codes: [500] },
          targets: [
            { provider: 'openai', api_key: 'k1', weight: 3, request_timeout: 2000 },
            { provider: '@backup', weight: 1, strict_compliance: true, custom_host: 'http://localhost:8080' },
          ],
        },
      ],
    }) as ConfigGroup;

    expect(config.kind).toBe('group');
    expect(config.strategy).toStrictEqual({ mode: 'fallback', onStatusCodes: [429, 503] });
    const retry2 = { attempts: 2, onStatusCodes: DEFAULT_RETRY_STATUS_CODES, useRetryAfterHeader: true };
    expect(config.targets[0]).toStrictEqual({
      kind: 'target',
      path: 'config.targets[0]',
      weight: 1,
      overrideParams: { temperature: 0.5, max_tokens: 50, model: 'gemini-2.5-flash' },
      retry: retry2,
      requestTimeoutMs: 10_000,
      customHost: 'http://127.0.0.1:9000',
      strictCompliance: false,
      virtualKey: 'gem',
    });
    const lb = config.targets[1] as ConfigGroup;
    expect(lb.path).toBe('config.targets[1]');
    expect(lb.strategy).toStrictEqual({ mode: 'loadbalance' });
    const retry1 = { attempts: 1, onStatusCodes: [500], useRetryAfterHeader: false };
    expect(lb.targets).toStrictEqual([
      {
        kind: 'target',
        path: 'config.targets[1].targets[0]',
        weight: 3,
        overrideParams: { temperature: 0.1, max_tokens: 50 },
        retry: retry1,
        requestTimeoutMs: 2000,
        customHost: 'http://127.0.0.1:9000',
        strictCompliance: false,
        provider: 'openai',
        apiKey: 'k1',
      },
      {
        kind: 'target',
        path: 'config.targets[1].targets[1]',
        weight: 1,
        overrideParams: { temperature: 0.1, max_tokens: 50 },
        retry: retry1,
        requestTimeoutMs: 10_000,
        customHost: 'http://localhost:8080',
        strictCompliance: true,
        virtualKey: 'backup',
      },
    ]);
  });

  it('compiles conditional strategies to target indexes', () => {
    const config = parseRoutingConfig({
      strategy: {
        mode: 'conditional',
        conditions: [
          { query: { 'metadata.plan': 'pro' }, then: 'smart' },
          { query: { 'params.max_tokens': { $gt: 1000 } }, then: 'smart' },
        ],
        default: 'cheap',
      },
      targets: [
        { name: 'cheap', virtual_key: 'a' },
        { name: 'smart', virtual_key: 'b' },
      ],
    }) as ConfigGroup;
    if (config.strategy.mode !== 'conditional') throw new Error('mode');
    expect(config.strategy.defaultIndex).toBe(0);
    expect(config.strategy.conditions.map((c) => [c.then, c.targetIndex])).toStrictEqual([
      ['smart', 1],
      ['smart', 1],
    ]);
    expect(config.strategy.conditions[0]!.when({ metadata: { plan: 'pro' }, params: {} })).toBe(true);
    expect(config.strategy.conditions[1]!.when({ metadata: {}, params: { max_tokens: 10 } })).toBe(false);
  });

  it('accepts the spellings Portkey configs use', () => {
    const config = parseRoutingConfig({
      strategy: { mode: 'fallback', onStatusCodes: [503] },
      targets: [
        {
          virtualKey: 'gem',
          overrideParams: { model: 'm' },
          retry: { attempts: 1, use_retry_after_headers: true, onStatusCodes: [429] },
          strict_open_ai_compliance: false,
          requestTimeout: 100,
          customHost: 'http://localhost:1',
        },
        { apiKey: 'k', provider: 'openai', strictOpenAiCompliance: true },
      ],
    }) as ConfigGroup;
    expect(config.strategy).toStrictEqual({ mode: 'fallback', onStatusCodes: [503] });
    expect(config.targets[0]).toStrictEqual({
      kind: 'target',
      path: 'config.targets[0]',
      weight: 1,
      overrideParams: { model: 'm' },
      retry: { attempts: 1, onStatusCodes: [429], useRetryAfterHeader: true },
      requestTimeoutMs: 100,
      customHost: 'http://localhost:1',
      strictCompliance: false,
      virtualKey: 'gem',
    });
    expect((config.targets[1] as ConfigTarget).apiKey).toBe('k');
    expect((config.targets[1] as ConfigTarget).strictCompliance).toBe(true);
  });

  it('reads circuit_breaker (merged field by field down the tree) and retry.budget_percent', () => {
    const config = parseRoutingConfig({
      strategy: { mode: 'fallback' },
      circuit_breaker: { failure_threshold: 3, on_all_open: 'try' },
      retry: { attempts: 2, budget_percent: 10 },
      targets: [
        { virtual_key: 'a', circuitBreaker: { cooldownMs: 1000, maxCooldownMs: 2000 } },
        { virtual_key: 'b', retry: { attempts: 1, budgetPercent: 50 } },
      ],
    }) as ConfigGroup;
    expect(config.circuitBreaker).toStrictEqual({ failureThreshold: 3, onAllOpen: 'try' });
    expect(config.targets[0]!.circuitBreaker).toStrictEqual({ failureThreshold: 3, onAllOpen: 'try', cooldownMs: 1000, maxCooldownMs: 2000 });
    expect(config.targets[0]!.retry).toStrictEqual({ attempts: 2, onStatusCodes: [429, 500, 502, 503, 504], useRetryAfterHeader: false, budgetPercent: 10 });
    expect(config.targets[1]!.circuitBreaker).toStrictEqual({ failureThreshold: 3, onAllOpen: 'try' });
    expect(config.targets[1]!.retry.budgetPercent).toBe(50);
    // Neither set: the gateway's defaults apply (nothing in the tree).
    const plain = parseRoutingConfig({ retry: { attempts: 1 } }) as ConfigTarget;
    expect(plain.circuitBreaker).toBeUndefined();
    expect(plain.retry.budgetPercent).toBeUndefined();
  });

  const invalid: Array<{ name: string; config: unknown; param: string }> = [
    { name: 'failure_threshold 0', config: { circuit_breaker: { failure_threshold: 0 } }, param: 'config.circuit_breaker.failure_threshold' },
    { name: 'cooldown_ms not a number', config: { circuit_breaker: { cooldown_ms: '5s' } }, param: 'config.circuit_breaker.cooldown_ms' },
    {
      name: 'max_cooldown_ms below cooldown_ms',
      config: { strategy: { mode: 'single' }, circuit_breaker: { cooldown_ms: 5000 }, targets: [{ circuit_breaker: { max_cooldown_ms: 1000 } }] },
      param: 'config.targets[0].circuit_breaker.max_cooldown_ms',
    },
    { name: 'unknown on_all_open', config: { circuit_breaker: { on_all_open: 'wait' } }, param: 'config.circuit_breaker.on_all_open' },
    { name: 'unknown circuit_breaker key', config: { circuit_breaker: { enabled: false } }, param: 'config.circuit_breaker.enabled' },
    { name: 'budget_percent over 100', config: { retry: { attempts: 1, budget_percent: 150 } }, param: 'config.retry.budget_percent' },
    { name: 'not JSON', config: '{oops', param: 'x-gateway-config' },
    { name: 'not an object', config: [1], param: 'config' },
    {
      name: 'too many retry attempts',
      config: { strategy: { mode: 'fallback' }, targets: [{ virtual_key: 'a' }, { virtual_key: 'b', retry: { attempts: 6 } }] },
      param: 'config.targets[1].retry.attempts',
    },
    { name: 'unknown mode', config: { strategy: { mode: 'random' }, targets: [{}] }, param: 'config.strategy.mode' },
    { name: 'unknown key', config: { provider: 'google', cache: { mode: 'simple' } }, param: 'config.cache' },
    {
      name: 'unknown key deep',
      config: { strategy: { mode: 'single' }, targets: [{ retry: { attempts: 1, factor: 2 } }] },
      param: 'config.targets[0].retry.factor',
    },
    { name: 'unknown provider', config: { provider: 'anthropic' }, param: 'config.provider' },
    { name: 'bad status code', config: { retry: { attempts: 1, on_status_codes: [99] } }, param: 'config.retry.on_status_codes[0]' },
    { name: 'negative weight', config: { strategy: { mode: 'loadbalance' }, targets: [{ weight: -1 }] }, param: 'config.targets[0].weight' },
    { name: 'all weights zero', config: { strategy: { mode: 'loadbalance' }, targets: [{ weight: 0 }] }, param: 'config.targets' },
    { name: 'bad custom host', config: { custom_host: 'ftp://x' }, param: 'config.custom_host' },
    { name: 'timeout not a number', config: { request_timeout: '5s' }, param: 'config.request_timeout' },
    { name: 'targets without strategy', config: { targets: [{ virtual_key: 'a' }] }, param: 'config.strategy' },
    { name: 'strategy without targets', config: { strategy: { mode: 'single' } }, param: 'config.targets' },
    { name: 'empty targets', config: { strategy: { mode: 'single' }, targets: [] }, param: 'config.targets' },
    {
      name: 'credentials on a group',
      config: { strategy: { mode: 'single' }, api_key: 'k', targets: [{}] },
      param: 'config.api_key',
    },
    { name: 'virtual key twice', config: { provider: '@a', virtual_key: 'b' }, param: 'config.virtual_key' },
    { name: 'virtual key and api key', config: { virtual_key: 'a', api_key: 'k' }, param: 'config.api_key' },
    {
      name: 'conditional without conditions',
      config: { strategy: { mode: 'conditional' }, targets: [{ name: 'a' }] },
      param: 'config.strategy.conditions',
    },
    {
      name: 'condition names a missing target',
      config: { strategy: { mode: 'conditional', conditions: [{ query: {}, then: 'b' }] }, targets: [{ name: 'a' }] },
      param: 'config.strategy.conditions[0].then',
    },
    {
      name: 'default names a missing target',
      config: { strategy: { mode: 'conditional', conditions: [{ query: {}, then: 'a' }], default: 'z' }, targets: [{ name: 'a' }] },
      param: 'config.strategy.default',
    },
    {
      name: 'bad regex fails at parse time',
      config: {
        strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': { $regex: '[' } }, then: 'a' }] },
        targets: [{ name: 'a' }],
      },
      param: 'config.strategy.conditions[0].query.params.model.$regex',
    },
    {
      name: 'conditions outside conditional mode',
      config: { strategy: { mode: 'fallback', conditions: [{ query: {}, then: 'a' }] }, targets: [{ name: 'a' }] },
      param: 'config.strategy.conditions',
    },
    {
      name: 'on_status_codes outside fallback',
      config: { strategy: { mode: 'loadbalance', on_status_codes: [500] }, targets: [{}] },
      param: 'config.strategy.on_status_codes',
    },
  ];

  it.each(invalid)('rejects $name with a 400 naming $param', ({ config, param }) => {
    const err = thrown(() => parseRoutingConfig(config));
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_config');
    expect(err.param).toBe(param);
  });

  it('never echoes an api key in the error message', () => {
    const err = thrown(() => parseRoutingConfig({ api_key: 'sk-not-real-1234', weight: 'heavy' }));
    expect(err.message).not.toContain('sk-not-real-1234');
  });
});

describe('createRoutingConfigStore', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sidegate-configs-'));
    await writeFile(join(dir, 'retry-3.json'), JSON.stringify({ retry: { attempts: 3 } }));
    await writeFile(join(dir, 'broken.json'), JSON.stringify({ retry: { attempts: 9 } }));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('loads a stored config by id once and caches it', async () => {
    const store = createRoutingConfigStore({ configDir: dir });
    const first = await store.resolve('retry-3');
    expect(first.retry.attempts).toBe(3);
    await writeFile(join(dir, 'retry-3.json'), JSON.stringify({ retry: { attempts: 1 } }));
    expect(await store.resolve('retry-3')).toBe(first);
  });

  it('parses inline JSON once per distinct value', async () => {
    const store = createRoutingConfigStore({});
    const a = await store.resolve('{"virtual_key":"gem"}');
    expect(await store.resolve(' {"virtual_key":"gem"} ')).toBe(a);
  });

  const bad: Array<{ name: string; value: string; param: string }> = [
    { name: 'unknown id', value: 'nope', param: 'x-gateway-config' },
    { name: 'path traversal', value: '../etc/passwd', param: 'x-gateway-config' },
    { name: 'invalid stored config', value: 'broken', param: 'config.retry.attempts' },
    { name: 'invalid inline config', value: '{"retry":{"attempts":-1}}', param: 'config.retry.attempts' },
  ];

  it.each(bad)('rejects $name', async ({ value, param }) => {
    const store = createRoutingConfigStore({ configDir: dir });
    await expect(store.resolve(value)).rejects.toMatchObject({ status: 400, param });
  });

  it('refuses ids when no config dir is set', async () => {
    await expect(createRoutingConfigStore({}).resolve('retry-3')).rejects.toMatchObject({ status: 400, param: 'x-gateway-config' });
  });
});
