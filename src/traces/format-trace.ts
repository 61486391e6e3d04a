/**
 * Text for `sidegate trace` and `sidegate traces`: the span tree with indentation, durations and a
 * ✗ on every failed span (failed attempts above all), totals at the bottom. Pure; the JSON answer
 * of the API is the source, so the CLI and `GET /v1/traces/{id}` cannot disagree.
 */
import type { SpanNode, TraceOverview, TraceSummary, TraceTotals } from './summarize-trace.js';

export function formatTrace(summary: TraceSummary): string {
  const lines = [`trace ${summary.trace_id}  ${summary.start_time}  ${duration(summary.duration_ms)}`, ''];
  const walk = (node: SpanNode, prefix: string, branch: string, last: boolean) => {
    lines.push(`${prefix}${branch}${describe(node)}`);
    const childPrefix = branch === '' ? prefix : `${prefix}${last ? '   ' : '│  '}`;
    node.children.forEach((child, i) => walk(child, childPrefix, i === node.children.length - 1 ? '└─ ' : '├─ ', i === node.children.length - 1));
  };
  for (const root of summary.spans) walk(root, '', '', true);
  lines.push('', `totals: ${totals(summary.totals, summary.duration_ms)}`);
  for (const f of summary.feedback) {
    const meta = Object.entries(f.metadata).map(([k, v]) => `${k}=${v}`);
    lines.push(`feedback ${f.id}: ${f.value} × ${f.weight}${f.versions > 1 ? ` (latest of ${f.versions} versions)` : ''}${meta.length ? `  ${meta.join(' ')}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

export function formatTraceList(list: { service: string; since: string; data: readonly TraceOverview[] }): string {
  if (list.data.length === 0) return `no traces of service ${list.service} since ${list.since}\n`;
  const lines = list.data.map(
    (t) => `${t.trace_id}  ${t.start_time}  ${duration(t.duration_ms).padStart(10)}  ${t.root_name}\n    ${totals(t.totals)}`,
  );
  return `${lines.join('\n')}\n`;
}

function describe(node: SpanNode): string {
  const mark = node.status === 'error' ? '✗ ' : '';
  const tags = [node.kind, node.type !== 'other' ? node.type : undefined, node.attempt_number !== null ? `#${node.attempt_number}` : undefined, node.provider ?? undefined]
    .filter((t): t is string => t !== undefined)
    .join(' · ');
  const parts = [`${mark}${node.name}`, `[${tags}]`];
  if (node.error_type !== null) parts.push(`error ${node.error_type}`);
  if (node.input_tokens !== null || node.output_tokens !== null) parts.push(`${node.input_tokens ?? 0} in / ${node.output_tokens ?? 0} out`);
  if (node.cost_usd !== null) parts.push(usd(node.cost_usd));
  parts.push(duration(node.duration_ms));
  return parts.join('  ');
}

function totals(t: TraceTotals, durationMs?: number): string {
  const parts = [
    `${t.spans} spans`,
    `${t.llm_calls} LLM calls${t.failed_attempts > 0 ? ` (${t.failed_attempts} failed)` : ''}`,
    `${t.input_tokens} in / ${t.output_tokens} out tokens`,
    usd(t.cost_usd),
    t.feedback_count > 0 ? `feedback ${t.feedback_count} (weighted mean ${t.feedback_weighted_mean})` : 'no feedback',
  ];
  if (durationMs !== undefined) parts.push(duration(durationMs));
  return parts.join(' · ');
}

function usd(value: number): string {
  return `$${value.toFixed(6)}`;
}

function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(3)} s` : `${ms.toFixed(2)} ms`;
}
