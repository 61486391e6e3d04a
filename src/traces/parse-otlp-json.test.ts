import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseOtlpJson } from './parse-otlp-json.js';

// Recorded from Jaeger v2 (the e2e build) `GET /api/v3/traces/{id}` after posting two spans over OTLP/HTTP.
const recorded = JSON.parse(readFileSync(new URL('./__fixtures__/jaeger-v3-trace.json', import.meta.url), 'utf8')) as unknown;

describe('parseOtlpJson', () => {
  it('reads Jaeger’s api/v3 answer: ids, parent, kind, status, ns times, typed attributes, service', () => {
    expect(parseOtlpJson(recorded)).toStrictEqual([
      {
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        parentSpanId: '',
        name: 'root',
        kind: 'server',
        status: 'error',
        statusMessage: 'x',
        startNs: 1795449530135486190n,
        endNs: 1795449530136986190n,
        attributes: { 'gateway.cost.usd': 0.000123, n: 5 },
        service: 'probe',
      },
      {
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '1111111111111111',
        parentSpanId: '00f067aa0ba902b7',
        name: 'child',
        kind: 'internal',
        status: 'unset',
        startNs: 1795449530135486313n,
        endNs: 1795449530135487190n,
        attributes: {},
        service: 'probe',
      },
    ]);
  });

  it.each([
    { name: 'null', input: null },
    { name: 'an error envelope', input: { error: { httpCode: 404, message: 'No traces found' } } },
    { name: 'resourceSpans not a list', input: { resourceSpans: 3 } },
  ])('gives [] for $name', ({ input }) => expect(parseOtlpJson(input)).toStrictEqual([]));

  it('skips a span without ids and reads enum names, arrays and bools', () => {
    const spans = parseOtlpJson({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                { name: 'no ids' },
                {
                  traceId: 'AB'.repeat(16),
                  spanId: 'CD'.repeat(8),
                  kind: 'SPAN_KIND_CLIENT',
                  status: { code: 'STATUS_CODE_ERROR' },
                  attributes: [
                    { key: 'a', value: { arrayValue: { values: [{ stringValue: 'stop' }] } } },
                    { key: 'b', value: { boolValue: false } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({ traceId: 'ab'.repeat(16), kind: 'client', status: 'error', attributes: { a: ['stop'], b: false }, service: '' });
  });
});
