/**
 * `GET /ui/prompts/{id}`: the prompt's versions side by side over a window (requests, LLM calls,
 * cost per request, tokens, p50/p95 duration, feedback mean), each linking to the trace list
 * filtered by that version. Pure.
 */
import { href, html, type Html } from './html.js';
import { formatCost, formatCount, formatDuration } from './format-values.js';
import { listSearchParams, parseListQuery } from './list-query.js';
import type { PromptVersionRow } from './prompt-versions.js';
import { renderLayout } from './render-layout.js';

export interface PromptVersionsView {
  promptId: string;
  since: string;
  versions: readonly PromptVersionRow[];
  /** Traces read for the window, and the most read. */
  read: number;
  readLimit: number;
}

const WINDOWS = ['1h', '24h', '7d', '30d'];

export function renderPromptVersions(view: PromptVersionsView): Html {
  const path = `/ui/prompts/${encodeURIComponent(view.promptId)}`;
  const windows = html`<p class="links">${WINDOWS.map((w) =>
    w === view.since ? html`<span class="button">last ${w}</span>` : html`<a class="button secondary" href="${href(path, new URLSearchParams({ since: w }))}">last ${w}</a>`,
  )}</p>`;
  const listOf = (version: number) => href('/ui/traces', listSearchParams(parseListQuery(new URLSearchParams({ since: view.since, prompt: view.promptId, version: String(version) }))));
  const body =
    view.versions.length === 0
      ? html`<div class="notice"><p>No request rendered from prompt <code>${view.promptId}</code> in the last ${view.since}.</p></div>`
      : html`<table class="traces versions">
<thead><tr><th>Version</th><th>Requests</th><th>Traces</th><th>LLM calls</th><th>Failed</th><th>Cost per request</th><th>Cost</th><th>Tokens in / out</th><th>p50 duration</th><th>p95 duration</th><th>Feedback mean</th></tr></thead>
<tbody>
${view.versions.map(
  (v) => html`<tr data-version="${v.version}">
<td><a href="${listOf(v.version)}">v${v.version}</a></td><td>${v.requests}</td><td>${v.traces}</td><td>${v.llmCalls}</td><td${v.failedAttempts > 0 ? html` class="failed"` : null}>${v.failedAttempts > 0 ? v.failedAttempts : ''}</td>
<td>${formatCost(v.costPerRequestUsd)}</td><td>${formatCost(v.costUsd)}</td><td>${formatCount(v.inputTokens)} / ${formatCount(v.outputTokens)}</td>
<td>${v.p50DurationMs === null ? '' : formatDuration(v.p50DurationMs)}</td><td>${v.p95DurationMs === null ? '' : formatDuration(v.p95DurationMs)}</td>
<td>${v.feedbackMean === null ? '' : `${Number(v.feedbackMean.toFixed(2))} (${v.feedbackCount})`}</td>
</tr>`,
)}
</tbody></table>`;
  return renderLayout(
    `Prompt ${view.promptId}`,
    html`<h1>Prompt <code>${view.promptId}</code></h1>
<p class="summary-line">Versions compared over ${view.read} ${view.read === 1 ? 'trace' : 'traces'} of the last ${view.since}${
      view.read >= view.readLimit ? html` (the newest ${view.readLimit})` : null
    }.</p>
${windows}${body}`,
  );
}
