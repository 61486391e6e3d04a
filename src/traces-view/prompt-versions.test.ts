import { describe, expect, it } from 'vitest';
import { span } from './__fixtures__/example-spans.js';
import { percentile, promptVersionsOf, type PromptVersionRow } from './prompt-versions.js';

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** One trace: a request from greet@version lasting `ms`, one attempt with `cost`, and optional feedback. */
function trace(n: number, version: number, ms: number, cost: number, feedback?: { value: number; weight: number }) {
  const traceId = hex(n + 1, 32);
  const request = hex(n * 3 + 1, 16);
  return [
    span(request, '', 'chat m', 0, ms, { attributes: { 'gateway.attempts': 1, 'gateway.prompt.id': 'greet', 'gateway.prompt.version': version } }),
    span(hex(n * 3 + 2, 16), request, 'generate_content m', 0, ms, {
      attributes: { 'gateway.attempt.number': 1, 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10, 'gateway.cost.usd': cost },
    }),
    ...(feedback
      ? [span(hex(n * 3 + 3, 16), '', 'feedback', ms + 10, ms + 10, { attributes: { 'gateway.feedback.id': `fb-${n}`, 'gateway.feedback.value': feedback.value, 'gateway.feedback.weight': feedback.weight } })]
      : []),
  ].map((s) => Object.assign(s, { traceId }));
}

describe('promptVersionsOf', () => {
  it('merges each version over traces: sums, cost per request, p50/p95 of request durations, the weighted feedback mean', () => {
    const traces = [
      trace(1, 1, 100, 0.001, { value: 10, weight: 1 }),
      trace(2, 1, 300, 0.003, { value: 0, weight: 0.25 }),
      trace(3, 2, 50, 0.0005),
      trace(4, 1, 200, 0.002),
      // another prompt: left out
      trace(5, 1, 999, 9).map((s) => (s.attributes['gateway.prompt.id'] ? Object.assign(s, { attributes: { ...s.attributes, 'gateway.prompt.id': 'other' } }) : s)),
    ];
    const want: PromptVersionRow[] = [
      {
        version: 1,
        requests: 3,
        traces: 3,
        llmCalls: 3,
        failedAttempts: 0,
        inputTokens: 300,
        outputTokens: 30,
        costUsd: 0.006,
        costPerRequestUsd: 0.002,
        p50DurationMs: 200,
        p95DurationMs: 300,
        feedbackCount: 2,
        feedbackMean: 8, // (10·1 + 0·0.25) / 1.25
      },
      {
        version: 2,
        requests: 1,
        traces: 1,
        llmCalls: 1,
        failedAttempts: 0,
        inputTokens: 100,
        outputTokens: 10,
        costUsd: 0.0005,
        costPerRequestUsd: 0.0005,
        p50DurationMs: 50,
        p95DurationMs: 50,
        feedbackCount: 0,
        feedbackMean: null,
      },
    ];
    expect(promptVersionsOf('greet', traces)).toStrictEqual(want);
    expect(promptVersionsOf('nobody', traces)).toStrictEqual([]);
  });

  it('percentile is nearest-rank', () => {
    expect([percentile([], 0.5), percentile([7], 0.95), percentile([1, 2, 3, 4], 0.5), percentile([1, 2, 3, 4], 0.95)]).toStrictEqual([null, 7, 2, 4]);
  });
});
