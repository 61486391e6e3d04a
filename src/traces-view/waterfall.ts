/**
 * The waterfall of `GET /ui/traces/{id}`: the summary's span tree flattened in display order
 * (depth first, children by start time), each row placed on the trace's time axis. Pure.
 *
 * The axis runs over the trace's work (feedback aside, as for the trace's duration: a score given
 * an hour later would squash every bar to a sliver); a feedback row sits at the axis's end.
 * Rows deeper than `collapseDepth` start hidden, and the row at that depth says how many it hides
 * (a trace of thousands of spans stays readable); the page's script or `?levels=all` shows them.
 */
import type { SpanNode, TraceSummary } from '../traces/summarize-trace.js';
import type { StoredSpan } from '../traces/trace-reader.js';

/** Bars are placed in units of 1/AXIS of the trace's duration. */
export const AXIS = 1000;
export const DEFAULT_COLLAPSE_DEPTH = 6;

export interface WaterfallRow {
  node: SpanNode;
  /** The stored span (attributes, exact times); absent only if the summary and the spans disagree. */
  span: StoredSpan | undefined;
  depth: number;
  /** Bar start and width on the axis, 0..AXIS; a width of at least 2 so an instant still shows. */
  offset: number;
  width: number;
  /** What kind of span this is, for a person: `request`, `attempt #2 · retry 1`, `log`, `feedback`. */
  label: string;
  /** All spans below this one. */
  descendants: number;
  /** Starts hidden: deeper than the collapse depth. */
  hidden: boolean;
  /** On a row at the collapse depth: how many rows below it start hidden. */
  hiding: number;
}

export function waterfallOf(summary: TraceSummary, spans: readonly StoredSpan[], collapseDepth: number = DEFAULT_COLLAPSE_DEPTH): WaterfallRow[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const work = spans.filter((s) => s.attributes['gateway.feedback.id'] === undefined);
  const timed = work.length > 0 ? work : spans;
  const startNs = timed.reduce((min, s) => (s.startNs < min ? s.startNs : min), timed[0]?.startNs ?? 0n);
  const endNs = timed.reduce((max, s) => (s.endNs > max ? s.endNs : max), timed[0]?.endNs ?? 0n);
  const total = Number(endNs - startNs) || 1;
  const place = (ns: bigint) => Math.min(AXIS, Math.max(0, (Number(ns - startNs) / total) * AXIS));

  const rows: WaterfallRow[] = [];
  // Iterative depth-first walk (a 10,000-level chain cannot overflow the stack).
  const stack: Array<{ node: SpanNode; depth: number }> = [...summary.spans].reverse().map((node) => ({ node, depth: 0 }));
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    const span = byId.get(node.span_id);
    const start = span === undefined ? 0 : node.type === 'feedback' ? AXIS : place(span.startNs);
    const end = span === undefined ? 0 : node.type === 'feedback' ? AXIS : place(span.endNs);
    const width = Math.max(2, end - start);
    rows.push({
      node,
      span,
      depth,
      offset: Math.round(Math.min(start, AXIS - width) * 10) / 10,
      width: Math.round(width * 10) / 10,
      label: labelOf(node, span),
      descendants: 0,
      hidden: depth > collapseDepth,
      hiding: 0,
    });
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
  }
  // Descendant counts: a row's subtree is the run of deeper rows that follows it.
  const open: WaterfallRow[] = [];
  for (const row of rows) {
    while (open.length > 0 && open[open.length - 1]!.depth >= row.depth) open.pop();
    for (const ancestor of open) {
      ancestor.descendants += 1;
      if (row.hidden && ancestor.depth === collapseDepth) ancestor.hiding += 1;
    }
    open.push(row);
  }
  return rows;
}

function labelOf(node: SpanNode, span: StoredSpan | undefined): string {
  if (node.type !== 'attempt') return node.type === 'other' ? node.kind : node.type;
  const parts = [`attempt #${node.attempt_number}`];
  const resend = span?.attributes['http.request.resend_count'];
  const target = span?.attributes['gateway.target.index'];
  if (typeof resend === 'number' && resend > 0) parts.push(`retry ${resend}`);
  if (typeof target === 'number' && target > 0) parts.push(`fallback → target ${target}`);
  return parts.join(' · ');
}
