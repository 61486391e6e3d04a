import { describe, expect, it } from 'vitest';
import { parseDuration, parseGeminiError, parseRetryAfterHeader, upstreamErrorFromObject } from './errors.js';

const quota = JSON.stringify({
  error: {
    code: 429,
    message: 'You exceeded your current quota, please check your plan and billing details.',
    status: 'RESOURCE_EXHAUSTED',
    details: [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '59s' },
    ],
  },
});

function view(e: ReturnType<typeof parseGeminiError>) {
  return {
    status: e.status,
    message: e.message,
    type: e.type,
    code: e.code,
    retryable: e.retryable,
    retryAfterSeconds: e.retryAfterSeconds,
    reason: e.reason,
  };
}

describe('parseGeminiError', () => {
  it.each([
    {
      name: '429 with RetryInfo',
      status: 429,
      body: quota,
      header: undefined,
      want: {
        status: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'rate_limit_error',
        code: 'resource_exhausted',
        retryable: true,
        retryAfterSeconds: 59,
        reason: '429',
      },
    },
    {
      name: 'Retry-After header wins over RetryInfo',
      status: 429,
      body: quota,
      header: '7',
      want: {
        status: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        type: 'rate_limit_error',
        code: 'resource_exhausted',
        retryable: true,
        retryAfterSeconds: 7,
        reason: '429',
      },
    },
    {
      name: '400 array form',
      status: 400,
      body: JSON.stringify([{ error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } }]),
      header: undefined,
      want: {
        status: 400,
        message: 'bad',
        type: 'invalid_request_error',
        code: 'invalid_argument',
        retryable: false,
        retryAfterSeconds: undefined,
        reason: '400',
      },
    },
    {
      name: '404 SSE-framed',
      status: 404,
      body: 'data: {"error":{"code":404,"message":"models/x is not found","status":"NOT_FOUND"}}\r\n\r\n',
      header: undefined,
      want: {
        status: 404,
        message: 'models/x is not found',
        type: 'not_found_error',
        code: 'not_found',
        retryable: false,
        retryAfterSeconds: undefined,
        reason: '404',
      },
    },
    {
      name: 'plain text 503',
      status: 503,
      body: 'Service Unavailable',
      header: '3',
      want: {
        status: 503,
        message: 'Service Unavailable',
        type: 'api_error',
        code: null,
        retryable: true,
        retryAfterSeconds: 3,
        reason: '503',
      },
    },
    {
      name: 'empty body',
      status: 500,
      body: '',
      header: undefined,
      want: {
        status: 500,
        message: 'upstream answered HTTP 500',
        type: 'api_error',
        code: null,
        retryable: true,
        retryAfterSeconds: undefined,
        reason: '500',
      },
    },
  ])('$name', ({ status, body, header, want }) => {
    expect(view(parseGeminiError(status, body, header === undefined ? {} : { retryAfterHeader: header }))).toStrictEqual(want);
  });

  it('scrubs the provider key from a message', () => {
    const e = parseGeminiError(400, JSON.stringify({ error: { code: 400, message: 'key test-key-123 is bad' } }), {
      apiKey: 'test-key-123',
    });
    expect(e.message).toStrictEqual('key [redacted] is bad');
  });

  it('in-stream error object uses its code', () => {
    const e = upstreamErrorFromObject({ code: 503, message: 'overloaded', status: 'UNAVAILABLE' });
    expect([e.status, e.message, e.retryable]).toStrictEqual([503, 'overloaded', true]);
  });
});

describe('retry delays', () => {
  it.each([
    { input: '59s', want: 59 },
    { input: '1.2s', want: 2 },
    { input: 'soon', want: undefined },
    { input: undefined, want: undefined },
  ])('duration $input', ({ input, want }) => {
    expect(parseDuration(input)).toStrictEqual(want);
  });
  it.each([
    { input: '120', want: 120 },
    { input: 'Wed, 21 Oct 2015 07:28:10 GMT', want: 10 },
    { input: 'garbage', want: undefined },
  ])('Retry-After $input', ({ input, want }) => {
    expect(parseRetryAfterHeader(input, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toStrictEqual(want);
  });
});
