/**
 * `GET /ui/traces`: the filter form, one row per trace (start, root span, duration, LLM calls,
 * failed attempts, tokens, cost, feedback, prompt versions, the chosen metadata columns), the
 * totals of the rows shown, and paging. Pure; every value escaped by `html`.
 */
import { href, html, type Html } from './html.js';
import { formatCost, formatCount, formatDuration, formatFeedback, formatTime } from './format-values.js';
import { listSearchParams, SORTS, type ListQuery } from './list-query.js';
import { renderLayout } from './render-layout.js';
import type { ListPage, TraceRow } from './trace-list.js';

export interface TraceListView {
  query: ListQuery;
  page: ListPage;
  /** Metadata keys shown as columns (`SIDEGATE_UI_COLUMNS`). */
  columns: readonly string[];
  service: string;
  /** Traces read from the backend for the window, and the most it returns. */
  read: number;
  readLimit: number;
}

const WINDOWS = ['15m', '1h', '6h', '24h', '7d', '30d'];

export function renderTraceList(view: TraceListView): Html {
  const { query, page } = view;
  const windows = WINDOWS.includes(query.since) ? WINDOWS : [query.since, ...WINDOWS];
  const form = html`<form class="filters" method="get" action="/ui/traces">
<label>Window<select name="since">${windows.map((w) => html`<option value="${w}"${query.since === w ? html` selected` : null}>last ${w}</option>`)}</select></label>
<label>Metadata<input type="text" name="meta" placeholder="user=alice" value="${query.metadata.map(([k, v]) => `${k}=${v}`)[0] ?? ''}"></label>${query.metadata
    .slice(1)
    .map(([k, v]) => html`<input type="hidden" name="meta" value="${k}=${v}">`)}
<label>Model<input type="text" name="model" placeholder="gemini-2.5-flash" value="${query.model ?? ''}"></label>
<label>Prompt<input type="text" class="short" name="prompt" value="${query.prompt ?? ''}"></label>
<label>Version<input type="text" class="short" name="version" inputmode="numeric" value="${query.version ?? ''}"></label>
<label>Min cost ($)<input type="text" class="short" name="min_cost" inputmode="decimal" value="${query.minCostUsd ?? ''}"></label>
<label>Min duration (ms)<input type="text" class="short" name="min_ms" inputmode="numeric" value="${query.minDurationMs ?? ''}"></label>
<label>Sort<select name="sort">${SORTS.map((s) => html`<option value="${s}"${query.sort === s ? html` selected` : null}>${s === 'time' ? 'newest first' : `${s}, highest first`}</option>`)}</select></label>
<label class="check"><input type="checkbox" name="failed" value="1"${query.failed ? html` checked` : null}>Only with failures</label>
<button class="primary" type="submit">Apply</button>
<a class="button secondary" href="/ui/traces">Reset</a>
</form>`;

  const shown = page.rows.length;
  const from = listSearchParams(query);
  const line = html`<p class="summary-line">${page.matching} ${page.matching === 1 ? 'trace matches' : 'traces match'} of ${view.read} read for service <b>${view.service}</b> in the last ${query.since}${
    view.read >= view.readLimit ? html` (the newest ${view.readLimit}: narrow the window to see older ones)` : null
  }${page.pages > 1 ? html`; page ${page.page} of ${page.pages}` : null}.</p>`;

  const table =
    shown === 0
      ? html`<div class="notice"><p>No trace matches. Widen the window or remove a filter.</p></div>`
      : html`<table class="traces">
<thead><tr><th>Start (UTC)</th><th>Trace</th><th class="num">Duration</th><th class="num">LLM calls</th><th class="num">Failed</th><th class="num">Tokens in / out</th><th class="num">Cost</th><th>Feedback</th><th>Prompts</th>${view.columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
<tbody>
${page.rows.map((row) => renderRow(row, view.columns, query, from))}
</tbody>
<tfoot><tr><td colspan="2">Totals of the ${shown} ${shown === 1 ? 'trace' : 'traces'} shown</td><td class="num">mean ${page.totals.meanDurationMs === null ? '' : formatDuration(page.totals.meanDurationMs)}</td><td></td><td></td><td class="num">${formatCount(page.totals.inputTokens)} / ${formatCount(page.totals.outputTokens)}</td><td class="num">${formatCost(page.totals.costUsd)}</td><td colspan="${2 + view.columns.length}"></td></tr></tfoot>
</table>`;

  const pager =
    page.pages > 1
      ? html`<div class="pager">${page.page > 1 ? html`<a href="${href('/ui/traces', listSearchParams(query, { page: page.page - 1 }))}">← Newer</a>` : null}<span class="muted">page ${page.page} of ${page.pages}</span>${
          page.page < page.pages ? html`<a href="${href('/ui/traces', listSearchParams(query, { page: page.page + 1 }))}">Older →</a>` : null
        }</div>`
      : null;

  return renderLayout('Traces', html`<h1>Traces</h1>${form}${line}${table}${pager}`);
}

function renderRow(row: TraceRow, columns: readonly string[], query: ListQuery, from: URLSearchParams): Html {
  const t = row.totals;
  const open = href(`/ui/traces/${encodeURIComponent(row.trace_id)}`, from.size > 0 ? new URLSearchParams({ from: from.toString() }) : undefined);
  const filterBy = (change: Partial<ListQuery>) => href('/ui/traces', listSearchParams(query, Object.assign({ page: 1 }, change)));
  return html`<tr data-trace-id="${row.trace_id}">
<td class="mono">${formatTime(row.start_time)}</td>
<td class="name"><a href="${open}">${row.root_name || row.trace_id}</a></td>
<td class="num">${formatDuration(row.duration_ms)}</td>
<td class="num">${t.llm_calls}</td>
<td class="num${t.failed_attempts > 0 ? ' failed' : ''}">${t.failed_attempts > 0 ? t.failed_attempts : ''}</td>
<td class="num">${formatCount(t.input_tokens)} / ${formatCount(t.output_tokens)}</td>
<td class="num">${formatCost(t.cost_usd)}</td>
<td class="feedback">${formatFeedback(t.feedback_count, t.feedback_weighted_mean)}</td>
<td>${row.prompts.map((p) => html`<a class="pill" href="${href(`/ui/prompts/${encodeURIComponent(p.prompt_id)}`, new URLSearchParams({ since: query.since }))}">${p.prompt_id} v${p.prompt_version}</a>`)}</td>
${columns.map((key) => {
  const value = row.metadata[key];
  return html`<td>${value === undefined ? null : html`<a href="${filterBy({ metadata: [...query.metadata.filter(([k]) => k !== key), [key, value]] })}">${value}</a>`}</td>`;
})}
</tr>`;
}
