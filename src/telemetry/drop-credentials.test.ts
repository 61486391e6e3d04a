import { describe, expect, it } from 'vitest';
import { dropCredentialHeaders, dropCredentialParams, looksLikeKey, redactKeys } from './drop-credentials.js';

describe('dropCredentialHeaders', () => {
  it('drops credential names and key-like values, keeps the rest lower-cased as lists', () => {
    expect(
      dropCredentialHeaders({
        Authorization: 'Bearer abc',
        'Proxy-Authorization': 'Basic Zm9vOmJhcg==',
        'x-gateway-api-key': 'k',
        'X-Goog-Api-Key': 'k',
        'api-key': 'k',
        'x-api-key': 'k',
        cookie: 'a=b',
        'set-cookie': ['a=b'],
        'x-session-id': 'abc',
        'x-auth-token': 'abc',
        'x-signature': 'abc',
        'x-forwarded-for': '10.0.0.1',
        'x-trace': 'sk-abcdefghijklmnop',
        accept: ['application/json', 'AIzaSyD-0123456789abcdefghijklmnopqrstu'],
        'user-agent': 'OpenAI/JS 6.49.0',
        'x-keyboard-layout': 'us',
      }),
    ).toStrictEqual({
      'x-forwarded-for': ['10.0.0.1'],
      accept: ['application/json'],
      'user-agent': ['OpenAI/JS 6.49.0'],
      'x-keyboard-layout': ['us'],
    });
  });
});

describe('looksLikeKey', () => {
  it.each([
    ['sk-proj-abcdefgh12345678', true],
    ['AIzaSyD-0123456789abcdefghijklmnopqrstu', true],
    ['Bearer x', true],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc', true],
    ['0123456789abcdef0123456789abcdef', true],
    ['application/json; charset=utf-8', false],
    ['gemini-2.5-flash', false],
    ['Mon, 23 Nov 2026 10:00:00 GMT', false],
  ])('%s → %s', (value, want) => expect(looksLikeKey(value)).toBe(want));
});

describe('dropCredentialParams', () => {
  it.each([
    ['https://h/v1beta/models/gemini-2.5-flash:generateContent?key=AIzaSyD-0123456789abcdefghijklmnopqrstu&alt=sse', 'https://h/v1beta/models/gemini-2.5-flash:generateContent?alt=sse'],
    ['https://user:pass@h/x?access_token=abc&q=1#frag', 'https://h/x?q=1'],
    ['https://h/x?sig=abc&page=2', 'https://h/x?page=2'],
    ['https://h/files/0123456789abcdef0123456789abcdef0123/x?q=1', 'https://h/[path omitted]?q=1'],
  ])('%s', (url, want) => expect(dropCredentialParams(url)).toBe(want));

  it('is undefined for a non-URL', () => expect(dropCredentialParams('not a url')).toBeUndefined());
});

describe('redactKeys', () => {
  it('replaces every key-like run in free text', () => {
    expect(redactKeys('use sk-abcdefghijklmnop and AIzaSyD-0123456789abcdefghijklmnopqrstu, then Bearer tok')).toBe(
      'use [redacted] and [redacted], then [redacted]',
    );
  });
});
