/**
 * Stored spans for the Traces view's tests: a request rendered from prompt `greet` v1 whose first
 * attempt failed with 503 and was retried, a logged app step above it, a log span whose name and
 * attributes try to inject markup, content capture on the good attempt, and two feedback scores.
 */
import type { StoredSpan } from '../../traces/trace-reader.js';

export const TRACE_ID = 'a'.repeat(32);
export const XSS = '<img src=x onerror=alert(1)>';
const MS = 1_000_000n;
export const BASE_NS = 1_795_449_530_000n * MS;

export function span(spanId: string, parent: string, name: string, startMs: number, endMs: number, extra: Partial<StoredSpan> = {}): StoredSpan {
  return {
    traceId: TRACE_ID,
    spanId,
    parentSpanId: parent,
    name,
    kind: 'internal',
    status: 'unset',
    startNs: BASE_NS + BigInt(startMs) * MS,
    endNs: BASE_NS + BigInt(endMs) * MS,
    attributes: {},
    service: 'sidegate',
    ...extra,
  };
}

export function exampleSpans(traceId = TRACE_ID): StoredSpan[] {
  const spans = [
    span('0000000000000001', '', 'answer question', 0, 1000, { attributes: { 'gateway.log.id': 'log-1', 'gateway.metadata.user': 'u-42' } }),
    span('0000000000000002', '0000000000000001', 'chat gemini-2.5-flash', 100, 600, {
      kind: 'server',
      attributes: {
        'gateway.attempts': 2,
        'gen_ai.request.model': 'gemini-2.5-flash',
        'gateway.prompt.id': 'greet',
        'gateway.prompt.version': 1,
        'gateway.metadata.user': 'u-42',
      },
    }),
    span('0000000000000003', '0000000000000002', 'generate_content gemini-2.5-flash', 110, 150, {
      kind: 'client',
      status: 'error',
      attributes: { 'gateway.attempt.number': 1, 'gateway.target.index': 0, 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.request.model': 'gemini-2.5-flash', 'error.type': '503' },
    }),
    span('0000000000000004', '0000000000000002', 'generate_content gemini-2.5-flash', 300, 590, {
      kind: 'client',
      attributes: {
        'gateway.attempt.number': 2,
        'gateway.target.index': 0,
        'http.request.resend_count': 1,
        'gen_ai.provider.name': 'gcp.gemini',
        'gen_ai.request.model': 'gemini-2.5-flash',
        'gen_ai.usage.input_tokens': 1200,
        'gen_ai.usage.output_tokens': 300,
        'gateway.cost.usd': 0.00011,
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `hello ${'x'.repeat(400)} </pre><script>alert(2)</script>` }] }]),
      },
    }),
    span('0000000000000005', '0000000000000001', XSS, 700, 900, {
      attributes: { 'gateway.log.id': 'log-2', 'note"><script>alert(3)</script>': `<b onmouseover="alert(4)">x</b>` },
    }),
    span('0000000000000006', '', 'feedback', 5000, 5000, { attributes: { 'gateway.feedback.id': 'fb-1', 'gateway.feedback.value': 8, 'gateway.feedback.weight': 1, 'gateway.metadata.user': 'u-42' } }),
    span('0000000000000007', '', 'feedback', 6000, 6000, { attributes: { 'gateway.feedback.id': 'fb-2', 'gateway.feedback.value': 2, 'gateway.feedback.weight': 0.5 } }),
  ];
  return spans.map((s) => Object.assign(s, { traceId }));
}
