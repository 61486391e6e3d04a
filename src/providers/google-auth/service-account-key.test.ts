import { describe, expect, it } from 'vitest';
import { parseServiceAccountKey } from './service-account-key.js';

const KEY = {
  type: 'service_account',
  project_id: 'my-proj',
  private_key_id: 'abc123',
  private_key: '-----BEGIN PRIVATE KEY-----\nSECRET\n-----END PRIVATE KEY-----\n',
  client_email: 'gw@my-proj.iam.gserviceaccount.com',
  client_id: '1',
  token_uri: 'https://oauth2.googleapis.com/token',
};

describe('parseServiceAccountKey', () => {
  it('reads the fields the token flow needs, from text or an object', () => {
    const want = {
      clientEmail: KEY.client_email,
      privateKey: KEY.private_key,
      privateKeyId: 'abc123',
      projectId: 'my-proj',
      tokenUri: 'https://oauth2.googleapis.com/token',
    };
    expect(parseServiceAccountKey(JSON.stringify(KEY))).toStrictEqual(want);
    expect(parseServiceAccountKey(KEY)).toStrictEqual(want);
  });

  it('defaults token_uri to Google\'s token endpoint', () => {
    const { token_uri: _, ...rest } = KEY;
    expect(parseServiceAccountKey(rest).tokenUri).toBe('https://oauth2.googleapis.com/token');
  });

  it.each([
    { name: 'not JSON', input: '{"type":', want: /not JSON/ },
    { name: 'another credential type', input: { ...KEY, type: 'authorized_user' }, want: /field type/ },
    { name: 'no private key', input: { ...KEY, private_key: undefined }, want: /field private_key/ },
    { name: 'a token_uri that is not a URL', input: { ...KEY, token_uri: 'file:///etc/passwd' }, want: /field token_uri/ },
  ])('refuses $name, never echoing the key', ({ input, want }) => {
    let message = '';
    try {
      parseServiceAccountKey(input);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(want);
    expect(message).not.toContain('SECRET');
  });
});
