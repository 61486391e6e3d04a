import { describe, expect, it } from 'vitest';
import { exampleSpans, span } from './__fixtures__/example-spans.js';
import { parseListQuery } from './list-query.js';
import { listPage, PAGE_SIZE, traceRowOf } from './trace-list.js';

const query = (qs: string) => parseListQuery(new URLSearchParams(qs));
const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** A one-request trace: `n` ms long, costing `cost`, for `user`, on `model`. */
function small(n: number, cost: number, user: string, model: string, failed = false) {
  const traceId = hex(n + 1, 32);
  return [
    span(hex(n * 2 + 1, 16), '', `chat ${model}`, n, n + n, { attributes: { 'gateway.attempts': 1, 'gateway.metadata.user': user, 'gen_ai.request.model': model } }),
    span(hex(n * 2 + 2, 16), hex(n * 2 + 1, 16), `generate_content ${model}`, n, n + n, {
      status: failed ? 'error' : 'unset',
      attributes: { 'gateway.attempt.number': 1, 'gen_ai.request.model': model, 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5, 'gateway.cost.usd': cost },
    }),
  ].map((s) => Object.assign(s, { traceId }));
}

describe('traceRowOf', () => {
  it('adds the metadata of work spans (feedback aside), the models and the spans in error to the overview', () => {
    const row = traceRowOf(exampleSpans());
    expect(row.metadata).toStrictEqual({ user: 'u-42' });
    expect(row.models).toStrictEqual(['gemini-2.5-flash']);
    expect(row.errors).toBe(1);
    expect(row.totals).toMatchObject({ llm_calls: 2, failed_attempts: 1, cost_usd: 0.00011, feedback_count: 2 });
    expect(row.prompts.map((p) => [p.prompt_id, p.prompt_version])).toStrictEqual([['greet', 1]]);
  });
});

describe('listPage', () => {
  const traces = [small(10, 0.5, 'alice', 'gemini-2.5-flash'), small(20, 0.1, 'bob', 'gemini-2.5-pro', true), small(30, 0.3, 'alice', 'gemini-2.5-pro'), exampleSpans()];
  const ids = (qs: string) => listPage(traces, query(qs)).rows.map((r) => r.root_name + (r.metadata.user ? `/${r.metadata.user}` : ''));

  it.each([
    { qs: '', want: ['chat gemini-2.5-pro/alice', 'chat gemini-2.5-pro/bob', 'chat gemini-2.5-flash/alice', 'answer question/u-42'] },
    { qs: 'sort=cost', want: ['chat gemini-2.5-flash/alice', 'chat gemini-2.5-pro/alice', 'chat gemini-2.5-pro/bob', 'answer question/u-42'] },
    { qs: 'sort=duration', want: ['answer question/u-42', 'chat gemini-2.5-pro/alice', 'chat gemini-2.5-pro/bob', 'chat gemini-2.5-flash/alice'] },
    { qs: 'meta=user%3Dalice', want: ['chat gemini-2.5-pro/alice', 'chat gemini-2.5-flash/alice'] },
    { qs: 'meta=user%3Dalice&model=gemini-2.5-pro', want: ['chat gemini-2.5-pro/alice'] },
    { qs: 'failed=1', want: ['chat gemini-2.5-pro/bob', 'answer question/u-42'] },
    { qs: 'min_cost=0.3', want: ['chat gemini-2.5-pro/alice', 'chat gemini-2.5-flash/alice'] },
    { qs: 'min_ms=25', want: ['chat gemini-2.5-pro/alice', 'answer question/u-42'] },
    { qs: 'prompt=greet', want: ['answer question/u-42'] },
    { qs: 'prompt=greet&version=2', want: [] },
    { qs: 'meta=team%3Dx', want: [] },
  ])('$qs', ({ qs, want }) => {
    expect(ids(qs)).toStrictEqual(want);
  });

  it('sums cost and tokens and averages the duration of the rows shown', () => {
    const page = listPage(traces, query('meta=user%3Dalice'));
    expect(page.totals).toStrictEqual({ costUsd: 0.8, inputTokens: 20, outputTokens: 10, meanDurationMs: 20 });
    expect(page.matching).toBe(2);
    expect(listPage([], query('')).totals).toStrictEqual({ costUsd: 0, inputTokens: 0, outputTokens: 0, meanDurationMs: null });
  });

  it('pages by PAGE_SIZE, newest first, and clamps a page past the end', () => {
    const many = Array.from({ length: PAGE_SIZE + 5 }, (_, i) => small(i + 1, 0.001, 'u', 'm'));
    const first = listPage(many, query(''));
    expect([first.rows.length, first.page, first.pages, first.matching]).toStrictEqual([PAGE_SIZE, 1, 2, PAGE_SIZE + 5]);
    const second = listPage(many, query('page=2'));
    expect(second.rows.map((r) => r.duration_ms)).toStrictEqual([5, 4, 3, 2, 1]);
    expect(listPage(many, query('page=9')).page).toBe(2);
  });
});
