/**
 * A trace's spans → the summary `GET /v1/traces/{id}` answers and `sidegate trace` prints (issue 8
 * item 3). Pure. The span tree is in chronological order (children by start time); spans whose
 * parent is not in the trace are roots. Totals (DESIGN Decision 16):
 *
 * - tokens and cost are summed over attempt spans and log spans only (the request span carries
 *   none, so nothing is counted twice);
 * - LLM calls are attempt spans plus chat-completion log spans; failed ones have ERROR status;
 * - feedback counts the latest version of each feedback id; the mean is weighted by `weight`;
 * - the trace duration runs from the first start to the last end of every span but feedback
 *   (a score given an hour later does not make the work an hour long);
 * - `prompts` groups the same usage, cost and feedback by prompt version (`gateway.prompt.*` on
 *   the request span an attempt belongs to), so versions can be compared by cost and feedback.
 */
import type { AttributeValue, SpanKindName, SpanStatusName, StoredSpan } from './trace-reader.js';

export type SpanRole = 'request' | 'attempt' | 'log' | 'feedback' | 'other';

export interface SpanNode {
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: SpanKindName;
  type: SpanRole;
  status: SpanStatusName;
  service: string;
  start_time: string;
  duration_ms: number;
  model: string | null;
  provider: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
  attempt_number: number | null;
  error_type: string | null;
  children: SpanNode[];
}

export interface TraceTotals {
  spans: number;
  llm_calls: number;
  failed_attempts: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  feedback_count: number;
  feedback_weighted_mean: number | null;
}

export interface FeedbackSummary {
  id: string;
  value: number;
  weight: number;
  metadata: Record<string, string>;
  recorded_at: string;
  /** How many versions of this id the trace holds; the latest one is shown. */
  versions: number;
}

/** Usage, cost and feedback of the calls rendered from one prompt version: a trace's totals but spans. */
export interface PromptVersionTotals extends Omit<TraceTotals, 'spans'> {
  prompt_id: string;
  prompt_version: number;
  /** Request spans rendered from this version. */
  requests: number;
}

export interface TraceOverview {
  trace_id: string;
  /** Name of the earliest root span (feedback aside). */
  root_name: string;
  start_time: string;
  end_time: string;
  duration_ms: number;
  totals: TraceTotals;
  /** One entry per prompt version used in the trace (by id, then version); empty when none was. */
  prompts: PromptVersionTotals[];
}

export interface TraceSummary extends TraceOverview {
  spans: SpanNode[];
  feedback: FeedbackSummary[];
}

export function roleOf(span: StoredSpan): SpanRole {
  const a = span.attributes;
  if (a['gateway.feedback.id'] !== undefined) return 'feedback';
  if (a['gateway.log.id'] !== undefined) return 'log';
  if (a['gateway.attempt.number'] !== undefined) return 'attempt';
  if (a['gateway.attempts'] !== undefined) return 'request';
  return 'other';
}

export function summarizeTrace(spans: readonly StoredSpan[]): TraceSummary {
  const overview = overviewOf(spans);
  return { ...overview, spans: buildTree(spans), feedback: latestFeedback(spans) };
}

/** The summary without the tree: one line of `GET /v1/traces`. */
export function overviewOf(spans: readonly StoredSpan[]): TraceOverview {
  const sorted = [...spans].sort(byStart);
  const timed = sorted.filter((s) => roleOf(s) !== 'feedback');
  const window = timed.length > 0 ? timed : sorted;
  const startNs = window.reduce((min, s) => (s.startNs < min ? s.startNs : min), window[0]?.startNs ?? 0n);
  const endNs = window.reduce((max, s) => (s.endNs > max ? s.endNs : max), window[0]?.endNs ?? 0n);
  const ids = new Set(spans.map((s) => s.spanId));
  const root = timed.find((s) => s.parentSpanId === '' || !ids.has(s.parentSpanId)) ?? sorted[0];

  const totals: TraceTotals = { spans: spans.length, ...noUsage() };
  for (const span of spans) {
    const role = roleOf(span);
    if (role === 'attempt' || role === 'log') addUsage(totals, span, role);
  }
  totals.cost_usd = roundCost(totals.cost_usd);
  const feedback = latestFeedback(spans);
  totals.feedback_count = feedback.length;
  totals.feedback_weighted_mean = weightedMean(
    feedback.reduce((sum, f) => sum + f.value * f.weight, 0),
    feedback.reduce((sum, f) => sum + f.weight, 0),
  );

  return {
    trace_id: spans[0]?.traceId ?? '',
    root_name: root?.name ?? '',
    start_time: isoOf(startNs),
    end_time: isoOf(endNs),
    duration_ms: msBetween(startNs, endNs),
    totals,
    prompts: promptTotalsOf(spans),
  };
}

/**
 * Groups usage and cost by the prompt version of the nearest span at or above each LLM span
 * that carries `gateway.prompt.id` (for an attempt: its request span). Feedback counts for the
 * prompt version of the span it is filed under, else, when the trace used exactly one prompt
 * version, for that one (feedback usually names the trace, not a span).
 */
export function promptTotalsOf(spans: readonly StoredSpan[]): PromptVersionTotals[] {
  return promptSumsOf(spans).map(({ feedback_weights: _w, feedback_weighted: _v, ...g }) => g);
}

/** A prompt version's totals with the two sums its feedback mean is made of, so several traces' totals can be merged. */
export interface PromptVersionSums extends PromptVersionTotals {
  /** Σ weight of the feedback counted. */
  feedback_weights: number;
  /** Σ value × weight of the feedback counted. */
  feedback_weighted: number;
}

/** `promptTotalsOf` with the feedback sums kept (the Traces view merges versions over many traces). */
export function promptSumsOf(spans: readonly StoredSpan[]): PromptVersionSums[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const groups = new Map<string, PromptVersionSums>();
  const keyOf = (span: StoredSpan): string | undefined => {
    const id = span.attributes['gateway.prompt.id'];
    const version = num(span.attributes['gateway.prompt.version']);
    if (typeof id !== 'string' || version === null) return undefined;
    const key = `${id}@${version}`;
    if (!groups.has(key)) {
      groups.set(key, { prompt_id: id, prompt_version: version, requests: 0, ...noUsage(), feedback_weights: 0, feedback_weighted: 0 });
    }
    return key;
  };
  const promptAbove = (start: StoredSpan | undefined): string | undefined => {
    const seen = new Set<StoredSpan>();
    for (let span = start; span !== undefined && !seen.has(span); span = byId.get(span.parentSpanId)) {
      seen.add(span);
      const key = keyOf(span);
      if (key !== undefined) return key;
    }
    return undefined;
  };

  for (const span of spans) {
    const key = roleOf(span) === 'request' ? keyOf(span) : undefined;
    if (key !== undefined) groups.get(key)!.requests += 1;
  }
  for (const span of spans) {
    const role = roleOf(span);
    if (role !== 'attempt' && role !== 'log') continue;
    const key = promptAbove(span);
    if (key === undefined) continue;
    addUsage(groups.get(key)!, span, role);
  }
  const only = groups.size === 1 ? [...groups.keys()][0] : undefined;
  for (const { span } of latestFeedbackSpans(spans).values()) {
    const key = promptAbove(byId.get(span.parentSpanId)) ?? only;
    if (key === undefined) continue;
    const group = groups.get(key)!;
    const weight = num(span.attributes['gateway.feedback.weight']) ?? 1;
    group.feedback_count += 1;
    group.feedback_weights += weight;
    group.feedback_weighted += (num(span.attributes['gateway.feedback.value']) ?? 0) * weight;
  }
  return [...groups.values()]
    .sort((a, b) => a.prompt_id.localeCompare(b.prompt_id) || a.prompt_version - b.prompt_version)
    .map((g) => Object.assign(g, { cost_usd: roundCost(g.cost_usd), feedback_weighted_mean: weightedMean(g.feedback_weighted, g.feedback_weights) }));
}

/** The usage and feedback fields of a trace's or a prompt version's totals, before anything is added. */
function noUsage(): Omit<TraceTotals, 'spans'> {
  return { llm_calls: 0, failed_attempts: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, feedback_count: 0, feedback_weighted_mean: null };
}

/** Sums of nano-dollar amounts, with the float noise rounded away. */
export function roundCost(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/** The weighted mean of feedback values to six places, or null without weight. */
export function weightedMean(weighted: number, weights: number): number | null {
  return weights > 0 ? Math.round((weighted / weights) * 1e6) / 1e6 : null;
}

type Usage = Pick<TraceTotals, 'llm_calls' | 'failed_attempts' | 'input_tokens' | 'output_tokens' | 'cost_usd'>;

/** Adds an attempt or log span's calls, tokens and cost to `into`. */
function addUsage(into: Usage, span: StoredSpan, role: 'attempt' | 'log'): void {
  if (role === 'attempt' || span.attributes['gen_ai.operation.name'] !== undefined) {
    into.llm_calls += 1;
    if (span.status === 'error') into.failed_attempts += 1;
  }
  into.input_tokens += num(span.attributes['gen_ai.usage.input_tokens']) ?? 0;
  into.output_tokens += num(span.attributes['gen_ai.usage.output_tokens']) ?? 0;
  into.cost_usd += num(span.attributes['gateway.cost.usd']) ?? 0;
}

/** The latest span of each feedback id, with how many versions the trace holds. */
function latestFeedbackSpans(spans: readonly StoredSpan[]): Map<string, { span: StoredSpan; versions: number }> {
  const byId = new Map<string, { span: StoredSpan; versions: number }>();
  for (const span of [...spans].sort(byStart)) {
    const id = span.attributes['gateway.feedback.id'];
    if (typeof id !== 'string') continue;
    byId.set(id, { span, versions: (byId.get(id)?.versions ?? 0) + 1 });
  }
  return byId;
}

function latestFeedback(spans: readonly StoredSpan[]): FeedbackSummary[] {
  return [...latestFeedbackSpans(spans).entries()]
    .map(([id, { span, versions }]) => ({
      id,
      value: num(span.attributes['gateway.feedback.value']) ?? 0,
      weight: num(span.attributes['gateway.feedback.weight']) ?? 1,
      metadata: Object.fromEntries(
        Object.entries(span.attributes).flatMap(([k, v]) => (k.startsWith('gateway.metadata.') && typeof v === 'string' ? [[k.slice(17), v]] : [])),
      ),
      recorded_at: isoOf(span.startNs),
      versions,
      startNs: span.startNs,
    }))
    .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0))
    .map(({ startNs: _s, ...f }) => f);
}

function buildTree(spans: readonly StoredSpan[]): SpanNode[] {
  const sorted = [...spans].sort(byStart);
  const ids = new Set(sorted.map((s) => s.spanId));
  const children = new Map<string, StoredSpan[]>();
  const roots: StoredSpan[] = [];
  for (const span of sorted) {
    if (span.parentSpanId === '' || !ids.has(span.parentSpanId) || span.parentSpanId === span.spanId) roots.push(span);
    else children.set(span.parentSpanId, [...(children.get(span.parentSpanId) ?? []), span]);
  }
  // Iterative, with a visited set: a deep chain cannot overflow the stack, a corrupt cycle cannot loop.
  const visited = new Set<StoredSpan>();
  const nodeOf = (span: StoredSpan): SpanNode => {
    visited.add(span);
    return toNode(span);
  };
  const top = roots.map(nodeOf);
  const queue: Array<[SpanNode, string]> = top.map((n) => [n, n.span_id]);
  while (queue.length > 0) {
    const [node, id] = queue.shift()!;
    for (const child of children.get(id) ?? []) {
      if (visited.has(child)) continue;
      const childNode = nodeOf(child);
      node.children.push(childNode);
      queue.push([childNode, child.spanId]);
    }
  }
  return top;
}

function toNode(span: StoredSpan): SpanNode {
  const a = span.attributes;
  return {
    span_id: span.spanId,
    parent_span_id: span.parentSpanId === '' ? null : span.parentSpanId,
    name: span.name,
    kind: span.kind,
    type: roleOf(span),
    status: span.status,
    service: span.service,
    start_time: isoOf(span.startNs),
    duration_ms: msBetween(span.startNs, span.endNs),
    model: str(a['gen_ai.request.model']) ?? str(a['gen_ai.response.model']),
    provider: str(a['gen_ai.provider.name']),
    input_tokens: num(a['gen_ai.usage.input_tokens']),
    output_tokens: num(a['gen_ai.usage.output_tokens']),
    cost_usd: num(a['gateway.cost.usd']),
    attempt_number: num(a['gateway.attempt.number']),
    error_type: str(a['error.type']),
    children: [],
  };
}

function byStart(a: StoredSpan, b: StoredSpan): number {
  return a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : a.name.localeCompare(b.name);
}

function num(value: AttributeValue | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function str(value: AttributeValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

function isoOf(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

/** ns difference as ms with µs precision. */
function msBetween(startNs: bigint, endNs: bigint): number {
  return Number((endNs - startNs) / 1000n) / 1000;
}
