/**
 * `GET /ui/prompts/{id}`: one prompt's versions side by side over a window of traces. Usage, cost
 * and feedback come from the summaries' per-version totals (`promptSumsOf`, so a version's numbers
 * here and in a trace's summary are counted the same way), merged over the traces; durations are
 * those of the request spans rendered from each version. Pure.
 */
import { promptSumsOf, roundCost, weightedMean } from '../traces/summarize-trace.js';
import type { StoredSpan } from '../traces/trace-reader.js';

export interface PromptVersionRow {
  version: number;
  requests: number;
  traces: number;
  llmCalls: number;
  failedAttempts: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Cost divided by requests (null without requests). */
  costPerRequestUsd: number | null;
  p50DurationMs: number | null;
  p95DurationMs: number | null;
  feedbackCount: number;
  feedbackMean: number | null;
}

export function promptVersionsOf(promptId: string, traces: readonly (readonly StoredSpan[])[]): PromptVersionRow[] {
  const rows = new Map<number, PromptVersionRow & { weights: number; weighted: number; durations: number[] }>();
  const rowOf = (version: number) => {
    let row = rows.get(version);
    if (row === undefined) {
      row = {
        version,
        requests: 0,
        traces: 0,
        llmCalls: 0,
        failedAttempts: 0,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
        costPerRequestUsd: null,
        p50DurationMs: null,
        p95DurationMs: null,
        feedbackCount: 0,
        feedbackMean: null,
        weights: 0,
        weighted: 0,
        durations: [],
      };
      rows.set(version, row);
    }
    return row;
  };
  for (const spans of traces) {
    for (const sums of promptSumsOf(spans)) {
      if (sums.prompt_id !== promptId) continue;
      const row = rowOf(sums.prompt_version);
      row.traces += 1;
      row.requests += sums.requests;
      row.llmCalls += sums.llm_calls;
      row.failedAttempts += sums.failed_attempts;
      row.inputTokens += sums.input_tokens;
      row.outputTokens += sums.output_tokens;
      row.costUsd += sums.cost_usd;
      row.feedbackCount += sums.feedback_count;
      row.weights += sums.feedback_weights;
      row.weighted += sums.feedback_weighted;
    }
    for (const span of spans) {
      const version = span.attributes['gateway.prompt.version'];
      if (span.attributes['gateway.prompt.id'] !== promptId || typeof version !== 'number' || span.attributes['gateway.attempts'] === undefined) continue;
      rowOf(version).durations.push(Number((span.endNs - span.startNs) / 1000n) / 1000);
    }
  }
  return [...rows.values()]
    .sort((a, b) => a.version - b.version)
    .map(({ weights, weighted, durations, ...row }) => {
      const sorted = durations.sort((a, b) => a - b);
      return Object.assign(row, {
        costUsd: roundCost(row.costUsd),
        costPerRequestUsd: row.requests > 0 ? roundCost(row.costUsd / row.requests) : null,
        p50DurationMs: percentile(sorted, 0.5),
        p95DurationMs: percentile(sorted, 0.95),
        feedbackMean: weightedMean(weighted, weights),
      });
    });
}

/** Nearest-rank percentile of sorted values, or null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}
