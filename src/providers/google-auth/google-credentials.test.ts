import { describe, expect, it } from 'vitest';
import { createGoogleCredentials, GoogleCredentialError, isGoogleApiHost, safeReason } from './google-credentials.js';
import { TokenFetchTimeout } from './token-cache.js';

describe('createGoogleCredentials: pass-through sources', () => {
  const creds = createGoogleCredentials();
  it.each([
    { name: 'an access token is sent as it is, with the target project', source: { kind: 'access-token', token: 'ya29.x' } as const, project: 'p-1', want: { secret: 'ya29.x', projectId: 'p-1' } },
    { name: 'an express key needs no project', source: { kind: 'express-api-key', apiKey: 'AIza-k' } as const, project: undefined, want: { secret: 'AIza-k' } },
  ])('$name', async ({ source, project, want }) => {
    expect(await creds.resolve(source, project)).toStrictEqual(want);
  });

  it('a malformed service-account key fails naming the source, without the key', async () => {
    const err = await creds.resolve({ kind: 'service-account', json: '{"type":"service_account","private_key":"SECRET"}' }, 'p').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GoogleCredentialError);
    expect((err as GoogleCredentialError).source).toBe('service-account');
    expect((err as Error).message).toMatch(/client_email/);
    expect((err as Error).message).not.toContain('SECRET');
  });
});

describe('safeReason', () => {
  it.each([
    { name: 'timeout', err: new TokenFetchTimeout(), want: 'the token request timed out' },
    { name: 'an HTTP answer', err: Object.assign(new Error('invalid_grant: Invalid JWT Signature. ya29.leak'), { response: { status: 400 } }), want: 'the token endpoint answered HTTP 400' },
    { name: 'a network error', err: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), want: 'the token request failed (ECONNREFUSED)' },
    { name: 'no ADC', err: new Error('Could not load the default credentials. Browse to …'), want: expect.stringMatching(/^no default credentials found/) },
    { name: 'anything else', err: new Error('secret-looking text ya29.leak'), want: 'the token request failed' },
  ])('$name', ({ err, want }) => {
    expect(safeReason(err)).toEqual(want);
  });
});

describe('isGoogleApiHost', () => {
  it.each([
    ['https://oauth2.googleapis.com/token', true],
    ['https://sts.googleapis.com/v1/token', true],
    ['http://oauth2.googleapis.com/token', false],
    ['https://googleapis.com.evil.example/token', false],
    ['http://127.0.0.1:9/token', false],
  ])('%s → %s', (url, want) => {
    expect(isGoogleApiHost(new URL(url))).toBe(want);
  });
});
