/**
 * `GET /ui/traces/{id}`: the trace's totals, its links (Jaeger, JSON, back to the list with its
 * filters), the waterfall, and its feedback. Each waterfall row is a `<details>` element: its
 * summary line shows kind, model, tokens, cost, status and a bar on the trace's time axis (SVG,
 * so no inline style is needed under the CSP); opened, it shows every attribute of the span and
 * the input and output messages when content capture recorded them. Long values fold. Pure.
 */
import type { AttributeValue, StoredSpan } from '../traces/trace-reader.js';
import type { TraceSummary } from '../traces/summarize-trace.js';
import { href, html, type Html } from './html.js';
import { formatCost, formatCount, formatDuration, formatFeedback, formatTime } from './format-values.js';
import { renderLayout } from './render-layout.js';
import { MAX_INDENT } from './view-style.js';
import { AXIS, type WaterfallRow } from './waterfall.js';

export interface TraceView {
  summary: TraceSummary;
  rows: readonly WaterfallRow[];
  /** `SIDEGATE_JAEGER_UI_URL`, when set. */
  jaegerUiUrl: string | undefined;
  /** The list's query string this trace was opened from (`from=`), kept for the way back. */
  from: string;
  /** Rows are folded past a depth (false with `?levels=all`). */
  folded: boolean;
  /** A span to show opened, with its attributes (`?span=`: the way to a span's attributes without the script). */
  openSpanId?: string | undefined;
}

/**
 * Up to this many spans, every span's attributes are in the page. Past it they are left out (they
 * are most of a big page's bytes, and parsing is most of its render time): a span's attributes
 * are fetched from `/ui/traces/{id}/attributes?span=` when it is opened (view-script.ts), or
 * shown with `?span=` without the script.
 */
export const INLINE_ATTRIBUTES_UP_TO = 300;

/** Attribute values longer than this are folded behind a "show" toggle. */
export const FOLD_AT = 300;
const MESSAGE_KEYS = ['gen_ai.system_instructions', 'gen_ai.input.messages', 'gen_ai.output.messages'];

export function renderTrace(view: TraceView): Html {
  const { summary } = view;
  const t = summary.totals;
  const id = summary.trace_id;
  const back = view.from === '' ? '/ui/traces' : `/ui/traces?${view.from}`;
  const totals = html`<div class="totals">
<div><b>${formatCost(t.cost_usd)}</b><span>cost</span></div>
<div><b>${formatDuration(summary.duration_ms)}</b><span>duration</span></div>
<div><b>${t.llm_calls}</b><span>LLM calls</span></div>
<div><b${t.failed_attempts > 0 ? html` class="failed"` : null}>${t.failed_attempts}</b><span>failed attempts</span></div>
<div><b>${formatCount(t.input_tokens)} / ${formatCount(t.output_tokens)}</b><span>tokens in / out</span></div>
<div><b>${formatFeedback(t.feedback_count, t.feedback_weighted_mean) || '—'}</b><span>feedback</span></div>
<div><b>${t.spans}</b><span>spans</span></div>
</div>`;
  const links = html`<div class="links">
<a class="button secondary" href="${back}">← Back to the list</a>
${view.jaegerUiUrl === undefined ? null : html`<a class="button secondary" href="${`${view.jaegerUiUrl}/trace/${encodeURIComponent(id)}`}" rel="noreferrer">Open in Jaeger</a>`}
<a class="button secondary" href="${`/ui/traces/${encodeURIComponent(id)}/json`}" download="${`trace-${id}.json`}">Download JSON</a>
${view.folded && view.rows.some((r) => r.hidden) ? html`<a class="button secondary" href="${href(`/ui/traces/${encodeURIComponent(id)}`, new URLSearchParams(view.from === '' ? { levels: 'all' } : { levels: 'all', from: view.from }))}">Show every level</a>` : null}
</div>`;
  const prompts =
    summary.prompts.length === 0
      ? null
      : html`<p class="muted">Prompt versions: ${summary.prompts.map((p) => html`<a class="pill" href="${`/ui/prompts/${encodeURIComponent(p.prompt_id)}`}">${p.prompt_id} v${p.prompt_version}</a>`)}</p>`;
  const waterfall = html`<div class="legend"><span><i class="request-key"></i>request</span><span><i class="attempt-key"></i>attempt</span><span><i class="failed-key"></i>failed</span><span><i class="log-key"></i>log</span><span><i class="feedback-key"></i>feedback</span></div>
<div class="waterfall" role="tree">
<div class="head"><span>Span</span><span>Kind</span><span>Model</span><span class="num">Tokens</span><span class="num">Cost</span><span>Status</span><span class="num">Duration</span><span>${formatTime(summary.start_time)} → ${formatDuration(summary.duration_ms)}</span></div>
${view.rows.map((row) => renderRow(row, view))}
</div>`;
  const feedback =
    summary.feedback.length === 0
      ? null
      : html`<h2>Feedback</h2>
<table class="traces feedback-list"><thead><tr><th>Recorded (UTC)</th><th>Id</th><th class="num">Value</th><th class="num">Weight</th><th>Metadata</th></tr></thead><tbody>
${summary.feedback.map(
  (f) => html`<tr><td class="mono">${formatTime(f.recorded_at)}</td><td class="mono">${f.id}${f.versions > 1 ? html` <span class="muted">(latest of ${f.versions})</span>` : null}</td><td class="num">${f.value}</td><td class="num">${f.weight}</td><td>${Object.entries(f.metadata).map(([k, v]) => html`<span class="pill">${k}=${v}</span>`)}</td></tr>`,
)}
</tbody></table>`;
  return renderLayout(
    `Trace ${summary.root_name || id}`,
    html`<h1>${summary.root_name || id}</h1>
<p class="muted mono">trace ${id} · started ${formatTime(summary.start_time)} UTC</p>
${totals}${links}${prompts}${waterfall}${feedback}`,
  );
}

function renderRow(row: WaterfallRow, view: TraceView): Html {
  const n = row.node;
  const open = view.openSpanId === n.span_id;
  const attributes =
    open || view.rows.length <= INLINE_ATTRIBUTES_UP_TO
      ? html`<div class="attrs">${renderAttributes(row.span)}</div>`
      : html`<div class="attrs" data-load><a href="${`?span=${n.span_id}#s-${n.span_id}`}">Show the attributes</a></div>`;
  const failed = n.status === 'error';
  const classes = `span ${n.type}${failed ? ' failed' : ''}`;
  const tokens = n.input_tokens === null && n.output_tokens === null ? '' : `${formatCount(n.input_tokens ?? 0)} / ${formatCount(n.output_tokens ?? 0)}`;
  const status = failed ? `error ${n.error_type ?? ''}`.trim() : n.status === 'ok' ? 'ok' : n.error_type !== null ? `${n.error_type}` : '';
  const fold =
    row.descendants === 0
      ? html`<span class="fold"></span>`
      : html`<button type="button" class="fold" aria-expanded="${row.hiding > 0 ? 'false' : 'true'}">${row.hiding > 0 ? '▸' : '▾'}<span class="more"${row.hiding > 0 ? null : html` hidden`}>+${row.hiding}</span></button>`;
  return html`<details class="${classes}" data-depth="${row.depth}" data-span-id="${n.span_id}"${row.hidden && !open ? html` hidden` : null}${open ? html` id="s-${n.span_id}" open` : null}>
<summary><span class="cell name d${Math.min(row.depth, MAX_INDENT)}">${fold}<span class="text" title="${n.name}">${n.name}</span></span><span class="cell"><span class="role">${row.label}</span></span><span class="cell">${n.model ?? ''}</span><span class="cell num">${tokens}</span><span class="cell num">${formatCost(n.cost_usd)}</span><span class="cell status">${status}</span><span class="cell num">${formatDuration(n.duration_ms)}</span><svg class="bar" aria-hidden="true"><rect x="${percent(row.offset)}" y="1" width="${percent(row.width)}" height="10"></rect></svg></summary>
${attributes}
</details>`;
}

/** A bar position on the axis as an SVG percentage (no viewBox needed, so fewer bytes per row). */
function percent(axisUnits: number): string {
  return `${Math.round((axisUnits / AXIS) * 1000) / 10}%`;
}

/** A span's attributes and captured messages: inside its row, or alone for the script that opens a row of a big trace. */
export function renderAttributes(span: StoredSpan | undefined): Html {
  if (span === undefined) return html`<p class="muted">No stored attributes.</p>`;
  const entries = Object.entries(span.attributes).sort(([a], [b]) => a.localeCompare(b));
  const plain = entries.filter(([k]) => !MESSAGE_KEYS.includes(k));
  const messages = entries.filter(([k]) => MESSAGE_KEYS.includes(k));
  return html`<dl>
<dt>span id</dt><dd>${span.spanId}</dd>
<dt>parent span id</dt><dd>${span.parentSpanId || '—'}</dd>
<dt>kind · status</dt><dd>${span.kind} · ${span.status}${span.statusMessage === undefined ? null : ` (${span.statusMessage})`}</dd>
<dt>service</dt><dd>${span.service}</dd>
${plain.map(([key, value]) => html`<dt>${key}</dt><dd>${foldable(textOf(value))}</dd>`)}
</dl>
${messages.map(([key, value]) => html`<h3>${key}</h3>${foldable(prettyJson(textOf(value)), true)}`)}`;
}

/** Long values fold behind a toggle showing their first characters (native `<details>`, no script). */
function foldable(text: string, block = false): Html {
  const body = block ? html`<pre>${text}</pre>` : html`${text}`;
  if (text.length <= FOLD_AT) return body;
  return html`<details class="long"><summary>${text.slice(0, 120)}… show all ${text.length} characters</summary>${block ? body : html`<pre>${text}</pre>`}</details>`;
}

function textOf(value: AttributeValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Content-capture attributes are JSON strings; shown indented when they parse. */
function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
