import { describe, expect, it } from 'vitest';
import { formatTrace, formatTraceList } from './format-trace.js';
import { summarizeTrace } from './summarize-trace.js';
import type { StoredSpan } from './trace-reader.js';

const BASE = 1_795_449_530_000_000_000n;
const span = (spanId: string, parent: string, name: string, startMs: number, endMs: number, extra: Partial<StoredSpan> = {}): StoredSpan => ({
  traceId: 'a'.repeat(32),
  spanId,
  parentSpanId: parent,
  name,
  kind: 'internal',
  status: 'unset',
  startNs: BASE + BigInt(Math.round(startMs * 1e6)),
  endNs: BASE + BigInt(Math.round(endMs * 1e6)),
  attributes: {},
  service: 'sidegate',
  ...extra,
});

const summary = summarizeTrace([
  span('0000000000000001', '', 'agent run', 0, 1800),
  span('0000000000000002', '0000000000000001', 'chat gemini-2.5-flash', 5, 250, { kind: 'server', attributes: { 'gateway.attempts': 2 } }),
  span('0000000000000003', '0000000000000002', 'generate_content gemini-2.5-flash', 10, 50, {
    kind: 'client',
    status: 'error',
    attributes: { 'gateway.attempt.number': 1, 'gen_ai.provider.name': 'gcp.gemini', 'error.type': '503' },
  }),
  span('0000000000000004', '0000000000000002', 'generate_content gemini-2.5-flash', 60, 240.5, {
    kind: 'client',
    attributes: { 'gateway.attempt.number': 2, 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 34, 'gateway.cost.usd': 0.000089 },
  }),
  span('0000000000000005', '0000000000000001', 'retrieve', 260, 290, { attributes: { 'gateway.log.id': 'l' } }),
  span('0000000000000006', '', 'feedback', 5000, 5000, { attributes: { 'gateway.feedback.id': 'fb-1', 'gateway.feedback.value': 8, 'gateway.feedback.weight': 1, 'gateway.metadata.user': 'u-42' } }),
]);

describe('formatTrace', () => {
  it('prints the tree with indentation, ✗ on the failed attempt, durations and totals', () => {
    expect(formatTrace(summary)).toMatchInlineSnapshot(`
      "trace aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  2026-11-23T15:58:50.000Z  1.800 s

      agent run  [internal]  1.800 s
      ├─ chat gemini-2.5-flash  [server · request]  245.00 ms
      │  ├─ ✗ generate_content gemini-2.5-flash  [client · attempt · #1 · gcp.gemini]  error 503  40.00 ms
      │  └─ generate_content gemini-2.5-flash  [client · attempt · #2 · gcp.gemini]  12 in / 34 out  $0.000089  180.50 ms
      └─ retrieve  [internal · log]  30.00 ms
      feedback  [internal · feedback]  0.00 ms

      totals: 6 spans · 2 LLM calls (1 failed) · 12 in / 34 out tokens · $0.000089 · feedback 1 (weighted mean 8) · 1.800 s
      feedback fb-1: 8 × 1  user=u-42
      "
    `);
  });
});

describe('formatTraceList', () => {
  it('prints one trace per entry with its totals', () => {
    expect(formatTraceList({ service: 'sidegate', since: '2026-11-23T09:00:00.000Z', data: [summary] })).toMatchInlineSnapshot(`
      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa  2026-11-23T15:58:50.000Z     1.800 s  agent run
          6 spans · 2 LLM calls (1 failed) · 12 in / 34 out tokens · $0.000089 · feedback 1 (weighted mean 8)
      "
    `);
    expect(formatTraceList({ service: 'sidegate', since: '2026-11-23T09:00:00.000Z', data: [] })).toBe('no traces of service sidegate since 2026-11-23T09:00:00.000Z\n');
  });
});
