import { describe, expect, it } from 'vitest';
import { summarizeTrace } from './summarize-trace.js';
import type { StoredSpan } from './trace-reader.js';

const T = 'a'.repeat(32);
const MS = 1_000_000n;
const BASE = 1_795_449_530_000n * MS;

function span(spanId: string, parent: string, name: string, startMs: number, endMs: number, extra: Partial<StoredSpan> = {}): StoredSpan {
  return {
    traceId: T,
    spanId,
    parentSpanId: parent,
    name,
    kind: 'internal',
    status: 'unset',
    startNs: BASE + BigInt(startMs) * MS,
    endNs: BASE + BigInt(endMs) * MS,
    attributes: {},
    service: 'sidegate',
    ...extra,
  };
}

const usage = (input: number, output: number, cost: number) => ({
  'gen_ai.usage.input_tokens': input,
  'gen_ai.usage.output_tokens': output,
  'gateway.cost.usd': cost,
});

describe('summarizeTrace', () => {
  // A request with a failed and a good attempt, a chat log under an app span, a non-LLM log,
  // two versions of one feedback and one other feedback, given in no particular order.
  const spans: StoredSpan[] = [
    span('0000000000000005', '0000000000000001', 'log gemini-2.5-flash', 300, 700, {
      kind: 'client',
      attributes: { 'gateway.log.id': 'log-1', 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gemini-2.5-flash', ...usage(100, 20, 0.0001) },
    }),
    span('0000000000000003', '0000000000000002', 'generate_content gemini-2.5-flash', 10, 50, {
      kind: 'client',
      status: 'error',
      attributes: { 'gateway.attempt.number': 1, 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.request.model': 'gemini-2.5-flash', 'error.type': '503' },
    }),
    span('0000000000000002', '0000000000000001', 'chat gemini-2.5-flash', 5, 250, {
      kind: 'server',
      attributes: { 'gateway.attempts': 2, 'gen_ai.request.model': 'gemini-2.5-flash', ...usage(999, 999, 9) },
    }),
    span('0000000000000004', '0000000000000002', 'generate_content gemini-2.5-flash', 60, 240, {
      kind: 'client',
      attributes: { 'gateway.attempt.number': 2, 'gen_ai.provider.name': 'gcp.gemini', ...usage(12, 34, 0.000089) },
    }),
    span('0000000000000001', '', 'agent run', 0, 800),
    span('0000000000000006', '0000000000000001', 'retrieve', 260, 290, { attributes: { 'gateway.log.id': 'log-2' } }),
    span('0000000000000007', '', 'feedback', 5000, 5000, { attributes: { 'gateway.feedback.id': 'fb-1', 'gateway.feedback.value': 9, 'gateway.feedback.weight': 1 } }),
    span('0000000000000008', '', 'feedback', 9000, 9000, {
      attributes: { 'gateway.feedback.id': 'fb-1', 'gateway.feedback.value': -4, 'gateway.feedback.weight': 0.5, 'gateway.metadata.why': 'wrong' },
    }),
    span('0000000000000009', '', 'feedback', 6000, 6000, { attributes: { 'gateway.feedback.id': 'fb-2', 'gateway.feedback.value': 6, 'gateway.feedback.weight': 1 } }),
  ];
  const summary = summarizeTrace(spans);

  it('sums usage and cost over attempt and log spans only, counts LLM calls and failures', () => {
    expect(summary.totals).toStrictEqual({
      spans: 9,
      llm_calls: 3,
      failed_attempts: 1,
      input_tokens: 112,
      output_tokens: 54,
      cost_usd: 0.000189,
      feedback_count: 2,
      // latest fb-1 (−4 × 0.5) and fb-2 (6 × 1): (−2 + 6) / 1.5
      feedback_weighted_mean: 2.666667,
    });
  });

  it('measures the trace from first start to last end, feedback aside, and names the root', () => {
    expect(summary.duration_ms).toBe(800);
    expect(summary.root_name).toBe('agent run');
    expect(summary.start_time).toBe(new Date(1_795_449_530_000).toISOString());
  });

  it('builds the tree in chronological order', () => {
    const names = (nodes: typeof summary.spans): unknown[] => nodes.map((n) => (n.children.length ? [n.name, names(n.children)] : n.name));
    expect(names(summary.spans)).toStrictEqual([
      ['agent run', [['chat gemini-2.5-flash', ['generate_content gemini-2.5-flash', 'generate_content gemini-2.5-flash']], 'retrieve', 'log gemini-2.5-flash']],
      'feedback',
      'feedback',
      'feedback',
    ]);
    const failed = summary.spans[0]!.children[0]!.children[0]!;
    expect(failed).toStrictEqual({
      span_id: '0000000000000003',
      parent_span_id: '0000000000000002',
      name: 'generate_content gemini-2.5-flash',
      kind: 'client',
      type: 'attempt',
      status: 'error',
      service: 'sidegate',
      start_time: new Date(1_795_449_530_010).toISOString(),
      duration_ms: 40,
      model: 'gemini-2.5-flash',
      provider: 'gcp.gemini',
      input_tokens: null,
      output_tokens: null,
      cost_usd: null,
      attempt_number: 1,
      error_type: '503',
      children: [],
    });
  });

  it('lists the latest version of each feedback id', () => {
    expect(summary.feedback).toStrictEqual([
      { id: 'fb-2', value: 6, weight: 1, metadata: {}, recorded_at: new Date(1_795_449_536_000).toISOString(), versions: 1 },
      { id: 'fb-1', value: -4, weight: 0.5, metadata: { why: 'wrong' }, recorded_at: new Date(1_795_449_539_000).toISOString(), versions: 2 },
    ]);
  });

  it('keeps a 50-level chain as 50 levels, and treats a span whose parent is missing as a root', () => {
    const chain = Array.from({ length: 50 }, (_, i) => span(i.toString(16).padStart(16, '0'), i === 0 ? 'ffffffffffffffff' : (i - 1).toString(16).padStart(16, '0'), `s${i}`, i, 100));
    const tree = summarizeTrace(chain.reverse());
    let depth = 0;
    for (let node = tree.spans[0]; node !== undefined; node = node.children[0]) depth++;
    expect(tree.spans).toHaveLength(1);
    expect(depth).toBe(50);
    expect(tree.totals.feedback_weighted_mean).toBeNull();
  });
});

describe('summaries by prompt version', () => {
  // Two calls from support@1 (one retried), one from support@2, one plain chat call, one feedback
  // filed under the v2 request span and one on the whole trace.
  const request = (id: string, start: number, prompt?: [string, number]) =>
    span(id, '', 'chat gemini-2.5-flash', start, start + 90, {
      kind: 'server',
      attributes: { 'gateway.attempts': 1, ...(prompt ? { 'gateway.prompt.id': prompt[0], 'gateway.prompt.version': prompt[1] } : {}) },
    });
  const attempt = (id: string, parent: string, start: number, extra: Partial<StoredSpan> = {}, attributes = {}) =>
    span(id, parent, 'generate_content gemini-2.5-flash', start, start + 50, {
      kind: 'client',
      ...extra,
      attributes: { 'gateway.attempt.number': 1, ...attributes },
    });
  const spans: StoredSpan[] = [
    request('00000000000000a1', 0, ['support', 1]),
    attempt('00000000000000b1', '00000000000000a1', 1, { status: 'error' }),
    attempt('00000000000000b2', '00000000000000a1', 2, {}, usage(100, 10, 0.001)),
    request('00000000000000a2', 100, ['support', 1]),
    attempt('00000000000000b3', '00000000000000a2', 101, {}, usage(50, 5, 0.0005)),
    request('00000000000000a3', 200, ['support', 2]),
    attempt('00000000000000b4', '00000000000000a3', 201, {}, usage(10, 1, 0.0001)),
    request('00000000000000a4', 300),
    attempt('00000000000000b5', '00000000000000a4', 301, {}, usage(7, 7, 0.7)),
    span('00000000000000f1', '00000000000000a3', 'feedback', 900, 900, {
      attributes: { 'gateway.feedback.id': 'fb-v2', 'gateway.feedback.value': 8, 'gateway.feedback.weight': 1 },
    }),
  ];

  it('groups requests, LLM calls, tokens, cost and feedback by prompt id and version; plain calls stay out', () => {
    expect(summarizeTrace(spans).prompts).toStrictEqual([
      {
        prompt_id: 'support',
        prompt_version: 1,
        requests: 2,
        llm_calls: 3,
        failed_attempts: 1,
        input_tokens: 150,
        output_tokens: 15,
        cost_usd: 0.0015,
        feedback_count: 0,
        feedback_weighted_mean: null,
      },
      {
        prompt_id: 'support',
        prompt_version: 2,
        requests: 1,
        llm_calls: 1,
        failed_attempts: 0,
        input_tokens: 10,
        output_tokens: 1,
        cost_usd: 0.0001,
        feedback_count: 1,
        feedback_weighted_mean: 8,
      },
    ]);
  });

  it('credits trace-level feedback to the only prompt version of the trace', () => {
    const single = [
      request('00000000000000a1', 0, ['greet', 3]),
      attempt('00000000000000b1', '00000000000000a1', 1, {}, usage(1, 1, 0.01)),
      span('00000000000000f1', '', 'feedback', 900, 900, { attributes: { 'gateway.feedback.id': 'f', 'gateway.feedback.value': -2, 'gateway.feedback.weight': 0.5 } }),
    ];
    expect(summarizeTrace(single).prompts).toMatchObject([{ prompt_id: 'greet', prompt_version: 3, feedback_count: 1, feedback_weighted_mean: -2 }]);
    // With two versions in the trace, trace-level feedback belongs to neither.
    const two = [...spans.slice(0, 9), span('00000000000000f2', '', 'feedback', 900, 900, { attributes: { 'gateway.feedback.id': 'g', 'gateway.feedback.value': 1 } })];
    expect(summarizeTrace(two).prompts.map((p) => p.feedback_count)).toStrictEqual([0, 0]);
  });

  it('is empty when no call came from a prompt', () => {
    expect(summarizeTrace(spans.slice(7, 9)).prompts).toStrictEqual([]);
  });
});
