import { describe, expect, it } from 'vitest';
import { createHeaders } from './create-headers.js';

describe('createHeaders', () => {
  const cases: Array<{ name: string; input: Parameters<typeof createHeaders>[0]; want: Record<string, string> }> = [
    { name: 'nothing', input: {}, want: {} },
    {
      name: 'every option',
      input: {
        apiKey: 'gw',
        provider: 'google',
        virtualKey: '@prod',
        config: { retry: { attempts: 2 } },
        traceId: 't1',
        spanId: 's1',
        parentSpanId: 'p1',
        spanName: 'my call',
        metadata: { user_name: 'ana', n: 3, ok: true },
        strictCompliance: false,
        providerKey: 'pk',
      },
      want: {
        'x-gateway-api-key': 'gw',
        'x-gateway-provider': 'google',
        'x-gateway-virtual-key': '@prod',
        'x-gateway-config': '{"retry":{"attempts":2}}',
        'x-gateway-trace-id': 't1',
        'x-gateway-span-id': 's1',
        'x-gateway-parent-span-id': 'p1',
        'x-gateway-span-name': 'my call',
        'x-gateway-metadata': '{"user_name":"ana","n":"3","ok":"true"}',
        'x-gateway-strict-compliance': 'false',
        authorization: 'Bearer pk',
      },
    },
    { name: 'a config id', input: { config: 'cfg-prod' }, want: { 'x-gateway-config': 'cfg-prod' } },
    { name: 'traceID spelling', input: { traceID: 'T' }, want: { 'x-gateway-trace-id': 'T' } },
    { name: 'traceId wins over traceID', input: { traceId: 'a', traceID: 'b' }, want: { 'x-gateway-trace-id': 'a' } },
    { name: 'empty strings are left out', input: { apiKey: '', provider: '' }, want: {} },
  ];
  it.each(cases)('$name', ({ input, want }) => {
    expect(createHeaders(input)).toStrictEqual(want);
  });

  it('refuses nested metadata without quoting values', () => {
    expect(() => createHeaders({ metadata: { a: { secret: 'k' } } as never })).toThrow(/metadata\.a must be/);
    try {
      createHeaders({ metadata: { a: { secret: 'k-123' } } as never });
    } catch (err) {
      expect(String(err)).not.toContain('k-123');
    }
  });
});
