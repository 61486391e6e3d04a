/**
 * The rows of `GET /ui/traces`: each recent trace's overview (the same totals as `GET /v1/traces`)
 * plus what a user filters on that the overview does not hold: the metadata of its spans and the
 * models it called. Then filter, sort, page, and the totals line of the rows shown. Pure.
 */
import { overviewOf, roleOf, type TraceOverview } from '../traces/summarize-trace.js';
import type { StoredSpan } from '../traces/trace-reader.js';
import type { ListQuery } from './list-query.js';

export const PAGE_SIZE = 50;

export interface TraceRow extends TraceOverview {
  /** `gateway.metadata.*` of the trace's spans (feedback aside: its metadata is about the score); the earliest value of a key wins. */
  metadata: Record<string, string>;
  /** Models asked for or answering, in first-seen order. */
  models: string[];
  /** Spans with ERROR status (failed attempts included). */
  errors: number;
}

const METADATA = 'gateway.metadata.';

export function traceRowOf(spans: readonly StoredSpan[]): TraceRow {
  const metadata: Record<string, string> = {};
  const models: string[] = [];
  let errors = 0;
  for (const span of [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))) {
    if (span.status === 'error') errors += 1;
    if (roleOf(span) === 'feedback') continue;
    for (const [key, value] of Object.entries(span.attributes)) {
      if (key.startsWith(METADATA) && typeof value === 'string' && !(key.slice(METADATA.length) in metadata)) metadata[key.slice(METADATA.length)] = value;
    }
    for (const key of ['gen_ai.request.model', 'gen_ai.response.model']) {
      const model = span.attributes[key];
      if (typeof model === 'string' && !models.includes(model)) models.push(model);
    }
  }
  return Object.assign(overviewOf(spans), { metadata, models, errors });
}

export function matchesQuery(row: TraceRow, q: ListQuery): boolean {
  if (q.metadata.some(([key, value]) => row.metadata[key] !== value)) return false;
  if (q.model !== undefined && !row.models.includes(q.model)) return false;
  if (q.prompt !== undefined && !row.prompts.some((p) => p.prompt_id === q.prompt && (q.version === undefined || p.prompt_version === q.version))) {
    return false;
  }
  if (q.failed && row.errors === 0 && row.totals.failed_attempts === 0) return false;
  if (q.minCostUsd !== undefined && row.totals.cost_usd < q.minCostUsd) return false;
  if (q.minDurationMs !== undefined && row.duration_ms < q.minDurationMs) return false;
  return true;
}

/** Newest first, or most expensive / longest first (newest first among equals). */
export function sortRows(rows: readonly TraceRow[], sort: ListQuery['sort']): TraceRow[] {
  const newest = (a: TraceRow, b: TraceRow) => (a.start_time < b.start_time ? 1 : a.start_time > b.start_time ? -1 : 0);
  const by: Record<ListQuery['sort'], (a: TraceRow, b: TraceRow) => number> = {
    time: newest,
    cost: (a, b) => b.totals.cost_usd - a.totals.cost_usd || newest(a, b),
    duration: (a, b) => b.duration_ms - a.duration_ms || newest(a, b),
  };
  return [...rows].sort(by[sort]);
}

export interface ListPage {
  rows: TraceRow[];
  /** Rows matching the filters, over every page. */
  matching: number;
  page: number;
  pages: number;
  totals: { costUsd: number; inputTokens: number; outputTokens: number; meanDurationMs: number | null };
}

export function listPage(traces: readonly (readonly StoredSpan[])[], q: ListQuery): ListPage {
  const matching = sortRows(traces.map(traceRowOf).filter((row) => matchesQuery(row, q)), q.sort);
  const pages = Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
  const page = Math.min(q.page, pages);
  const rows = matching.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
  const sum = (f: (r: TraceRow) => number) => rows.reduce((s, r) => s + f(r), 0);
  return {
    rows,
    matching: matching.length,
    page,
    pages,
    totals: {
      costUsd: Math.round(sum((r) => r.totals.cost_usd) * 1e9) / 1e9,
      inputTokens: sum((r) => r.totals.input_tokens),
      outputTokens: sum((r) => r.totals.output_tokens),
      meanDurationMs: rows.length === 0 ? null : Math.round((sum((r) => r.duration_ms) / rows.length) * 1000) / 1000,
    },
  };
}
