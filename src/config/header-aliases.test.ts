import { describe, expect, it } from 'vitest';
import { canonicalHeader, mirrorResponseHeaders, usesPortkeyPrefix } from './header-aliases.js';

describe('canonicalHeader', () => {
  it.each([
    { name: 'gateway name', headers: { 'x-gateway-trace-id': 'a' }, header: 'x-gateway-trace-id', want: 'a' },
    { name: 'portkey alias', headers: { 'x-portkey-trace-id': 'b' }, header: 'x-gateway-trace-id', want: 'b' },
    { name: 'gateway wins over alias', headers: { 'x-gateway-trace-id': 'a', 'x-portkey-trace-id': 'b' }, header: 'x-gateway-trace-id', want: 'a' },
    { name: 'renamed alias', headers: { 'x-portkey-strict-open-ai-compliance': 'false' }, header: 'x-gateway-strict-compliance', want: 'false' },
    { name: 'blank is absent', headers: { 'x-gateway-trace-id': ' ', 'x-portkey-trace-id': 'b' }, header: 'x-gateway-trace-id', want: 'b' },
    { name: 'repeated header takes the first', headers: { 'x-gateway-span-name': ['one', 'two'] }, header: 'x-gateway-span-name', want: 'one' },
    { name: 'missing', headers: {}, header: 'x-gateway-trace-id', want: undefined },
  ])('$name', ({ headers, header, want }) => {
    expect(canonicalHeader(headers, header)).toStrictEqual(want);
  });
});

describe('response mirroring', () => {
  it('detects the portkey dialect and mirrors aliased headers', () => {
    expect(usesPortkeyPrefix({ 'x-portkey-api-key': 'k' })).toStrictEqual(true);
    expect(usesPortkeyPrefix({ 'x-gateway-api-key': 'k' })).toStrictEqual(false);
    expect(mirrorResponseHeaders({ 'x-gateway-trace-id': 't', traceparent: 'p' })).toStrictEqual({
      'x-gateway-trace-id': 't',
      traceparent: 'p',
      'x-portkey-trace-id': 't',
    });
  });
});
