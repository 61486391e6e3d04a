import { describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from './settings.js';

describe('loadSettings', () => {
  it('uses the documented defaults', () => {
    const s = loadSettings([], { SIDEGATE_API_KEYS: 'k1' });
    expect(s.port).toBe(8787);
    expect(s.host).toBe('127.0.0.1');
    expect(s.geminiBaseUrl).toBe('https://generativelanguage.googleapis.com');
    expect(s.maxBodyBytes).toBe(100 * 1024 * 1024);
    expect(s.upstreamTimeoutMs).toBe(600_000);
    expect(s.apiKeys).toStrictEqual(['k1']);
    expect(s.generatedApiKey).toBe(false);
  });

  it('lets flags win over env, in both --flag value and --flag=value forms', () => {
    const env = { SIDEGATE_PORT: '7000', SIDEGATE_HOST: '0.0.0.0', SIDEGATE_API_KEYS: 'a, b ,,c' };
    const s = loadSettings(['--port', '9000', '--host=::1'], env);
    expect(s.port).toBe(9000);
    expect(s.host).toBe('::1');
    expect(s.apiKeys).toStrictEqual(['a', 'b', 'c']);
  });

  it('never runs open: generates a gateway key when none is configured', () => {
    const s = loadSettings([], {});
    expect(s.generatedApiKey).toBe(true);
    expect(s.apiKeys).toHaveLength(1);
    expect(s.apiKeys[0]).toMatch(/^sg-[A-Za-z0-9_-]{32}$/);
    expect(loadSettings([], { SIDEGATE_API_KEYS: '   ' }).generatedApiKey).toBe(true);
  });

  it.each([
    { argv: [], env: { SIDEGATE_PORT: 'eighty' }, names: 'SIDEGATE_PORT' },
    { argv: ['--port', '70000'], env: {}, names: '--port' },
    { argv: [], env: { SIDEGATE_GEMINI_BASE_URL: 'ftp://x' }, names: 'SIDEGATE_GEMINI_BASE_URL' },
    { argv: [], env: { SIDEGATE_MAX_BODY_BYTES: '-1' }, names: 'SIDEGATE_MAX_BODY_BYTES' },
    { argv: [], env: { SIDEGATE_UPSTREAM_TIMEOUT_MS: '0' }, names: 'SIDEGATE_UPSTREAM_TIMEOUT_MS' },
    { argv: [], env: { SIDEGATE_FETCH_MEDIA_URLS: 'maybe' }, names: 'SIDEGATE_FETCH_MEDIA_URLS' },
    { argv: ['--bogus', '1'], env: {}, names: '--bogus' },
    { argv: ['--port'], env: {}, names: '--port' },
  ])('stops with one line naming $names', ({ argv, env, names }) => {
    let caught: unknown;
    try {
      loadSettings(argv, env);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SettingsError);
    const message = (caught as Error).message;
    expect(message).toContain(names);
    expect(message).not.toContain('\n');
  });

  it('reads the Traces view settings: on by default, user as the one column, no Jaeger UI link', () => {
    const defaults = loadSettings([], { SIDEGATE_API_KEYS: 'k1' });
    expect([defaults.ui, defaults.uiColumns, defaults.jaegerUiUrl]).toStrictEqual([true, ['user'], undefined]);
    const set = loadSettings([], { SIDEGATE_API_KEYS: 'k1', SIDEGATE_UI: 'false', SIDEGATE_UI_COLUMNS: 'user, team,', SIDEGATE_JAEGER_UI_URL: 'http://localhost:16686/' });
    expect([set.ui, set.uiColumns, set.jaegerUiUrl]).toStrictEqual([false, ['user', 'team'], 'http://localhost:16686']);
    expect(() => loadSettings([], { SIDEGATE_UI: 'maybe' })).toThrow(/SIDEGATE_UI/);
    expect(() => loadSettings([], { SIDEGATE_JAEGER_UI_URL: 'javascript:alert(1)' })).toThrow(/SIDEGATE_JAEGER_UI_URL/);
  });

  it('does not echo secret values in errors', () => {
    expect(() => loadSettings([], { SIDEGATE_ADMIN_KEY: 'short-secret' })).toThrow(/SIDEGATE_ADMIN_KEY \(value hidden\)/);
  });

  it('reads the OpenAI-compatible base URL (default api.openai.com), refusing a non-URL', () => {
    expect(loadSettings([], { SIDEGATE_API_KEYS: 'k1' }).openaiBaseUrl).toBe('https://api.openai.com');
    expect(loadSettings([], { SIDEGATE_OPENAI_BASE_URL: 'http://127.0.0.1:8000/' }).openaiBaseUrl).toBe('http://127.0.0.1:8000');
    expect(() => loadSettings([], { SIDEGATE_OPENAI_BASE_URL: 'localhost:8000' })).toThrow(/SIDEGATE_OPENAI_BASE_URL/);
  });

  it('reads SIDEGATE_CIRCUIT_BREAKER (default on) and SIDEGATE_RETRY_BUDGET_PERCENT (default 20), naming a bad one', () => {
    const defaults = loadSettings([], {});
    expect([defaults.circuitBreaker, defaults.retryBudgetPercent]).toStrictEqual([true, 20]);
    const set = loadSettings([], { SIDEGATE_CIRCUIT_BREAKER: 'false', SIDEGATE_RETRY_BUDGET_PERCENT: '5' });
    expect([set.circuitBreaker, set.retryBudgetPercent]).toStrictEqual([false, 5]);
    expect(() => loadSettings([], { SIDEGATE_RETRY_BUDGET_PERCENT: '120' })).toThrow(/SIDEGATE_RETRY_BUDGET_PERCENT/);
    expect(() => loadSettings([], { SIDEGATE_CIRCUIT_BREAKER: 'maybe' })).toThrow(/SIDEGATE_CIRCUIT_BREAKER/);
  });

  it('strips a trailing slash from the Gemini base URL', () => {
    expect(loadSettings([], { SIDEGATE_GEMINI_BASE_URL: 'http://127.0.0.1:9/' }).geminiBaseUrl).toBe('http://127.0.0.1:9');
  });
});
