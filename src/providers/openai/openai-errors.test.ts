import { describe, expect, it } from 'vitest';
import { parseOpenAIError, parseRetryAfter } from './openai-errors.js';

describe('parseOpenAIError', () => {
  it.each([
    {
      name: 'OpenAI envelope',
      status: 400,
      body: '{"error":{"message":"bad temperature","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}',
      want: { status: 400, message: 'bad temperature', param: 'temperature', code: 'invalid_value', retryable: false },
    },
    { name: 'numeric code', status: 500, body: '{"error":{"message":"boom","code":500}}', want: { status: 500, message: 'boom', code: '500', retryable: true } },
    { name: 'string error (some servers)', status: 404, body: '{"error":"model not found"}', want: { status: 404, message: 'model not found' } },
    { name: 'not JSON', status: 502, body: '<html>bad gateway</html>', want: { status: 502, message: 'upstream answered 502' } },
    { name: 'odd status', status: 302, body: '', want: { status: 502, reason: 'invalid_response' } },
  ])('$name', ({ status, body, want }) => {
    expect(parseOpenAIError(status, body)).toMatchObject(want);
  });

  it('prefers retry-after-ms over Retry-After', () => {
    expect(parseOpenAIError(429, '', { retryAfterHeader: '9', retryAfterMsHeader: '1500' }).retryAfterSeconds).toBe(1.5);
    expect(parseOpenAIError(429, '', { retryAfterHeader: '9' }).retryAfterSeconds).toBe(9);
    expect(parseOpenAIError(429, '').retryAfterSeconds).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it.each([
    { value: '30', want: 30 },
    { value: ' 2 ', want: 2 },
    { value: 'Thu, 01 Jan 2026 00:00:10 GMT', want: 10 },
    { value: 'Wed, 31 Dec 2025 23:00:00 GMT', want: 0 },
    { value: 'soon', want: undefined },
    { value: undefined, want: undefined },
  ])('$value → $want', ({ value, want }) => expect(parseRetryAfter(value, now)).toBe(want));
});
