import { describe, expect, it } from 'vitest';
import { AuthError } from '../errors.js';
import { createGatewayKeyCheck } from './auth.js';

describe('createGatewayKeyCheck', () => {
  const check = createGatewayKeyCheck(['key-one', 'key-two']);

  it.each([
    { name: 'first key', headers: { 'x-gateway-api-key': 'key-one' } },
    { name: 'second key', headers: { 'x-gateway-api-key': 'key-two' } },
    { name: 'portkey alias', headers: { 'x-portkey-api-key': 'key-two' } },
  ])('accepts the $name', ({ headers }) => {
    expect(() => check(headers)).not.toThrow();
  });

  it.each([
    { name: 'missing', headers: {}, code: 'missing_api_key' },
    { name: 'wrong', headers: { 'x-gateway-api-key': 'key-three' }, code: 'invalid_api_key' },
    { name: 'prefix of a key', headers: { 'x-gateway-api-key': 'key-' }, code: 'invalid_api_key' },
    { name: 'empty', headers: { 'x-gateway-api-key': '' }, code: 'missing_api_key' },
  ])('refuses a $name key with 401 and does not echo it', ({ headers, code }) => {
    try {
      check(headers);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AuthError);
      expect((err as AuthError).status).toBe(401);
      expect((err as AuthError).code).toBe(code);
      expect((err as AuthError).message).not.toContain('key-three');
    }
  });

  it('refuses to build without keys (never run open)', () => {
    expect(() => createGatewayKeyCheck([])).toThrow();
  });
});
