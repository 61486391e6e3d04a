import { describe, expect, it } from 'vitest';
import { exampleSpans, TRACE_ID } from './__fixtures__/example-spans.js';
import { parseListQuery } from './list-query.js';
import { renderTraceList } from './render-trace-list.js';
import { listPage } from './trace-list.js';

function page(qs: string, traces = [exampleSpans()], columns = ['user']) {
  const query = parseListQuery(new URLSearchParams(qs));
  return renderTraceList({ query, page: listPage(traces, query), columns, service: 'sidegate', read: traces.length, readLimit: 1000 }).text;
}

describe('renderTraceList', () => {
  it('shows one row per trace with its totals, feedback, prompt versions and metadata columns', () => {
    const text = page('');
    const row = /<tr data-trace-id="([0-9a-f]+)">([\s\S]*?)<\/tr>/.exec(text)!;
    expect(row[1]).toBe(TRACE_ID);
    const cells = [...row[2]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    expect(cells).toStrictEqual(['2026-11-23 15:58:50', 'answer question', '1.00 s', '2', '1', '1,200 / 300', '$0.00011', '2 · mean 6', 'greet v1', 'u-42']);
    expect(text).toContain(`<a href="/ui/traces/${TRACE_ID}">answer question</a>`);
    expect(text).toContain('<a class="pill" href="/ui/prompts/greet?since=1h">greet v1</a>');
    expect(text).toContain('<a href="/ui/traces?meta=user%3Du-42">u-42</a>');
    expect(text).toContain('<td colspan="2">Totals of the 1 trace shown</td><td class="num">mean 1.00 s</td>');
  });

  it('keeps the filters in the form, in the links to each trace and in the paging links', () => {
    const text = page('since=24h&meta=user%3Du-42&meta=team%3Da&failed=1&sort=cost');
    expect(text).toContain('<option value="24h" selected>last 24h</option>');
    expect(text).toContain('<input type="text" name="meta" placeholder="user=alice" value="user=u-42"></label><input type="hidden" name="meta" value="team=a">');
    expect(text).toContain('<option value="cost" selected>cost, highest first</option>');
    expect(text).toContain('name="failed" value="1" checked');
    // meta=team=a is not in the trace's metadata: nothing matches.
    expect(text).toContain('No trace matches.');
    const open = page('since=24h&sort=cost');
    expect(open).toContain(`href="/ui/traces/${TRACE_ID}?from=since%3D24h%26sort%3Dcost"`);
  });

  it('escapes metadata values and filter values written back into the form', () => {
    const spans = exampleSpans().map((s) => (s.attributes['gateway.metadata.user'] ? Object.assign(s, { attributes: { ...s.attributes, 'gateway.metadata.user': '"><script>alert(1)</script>' } }) : s));
    const text = page('model=%22%3E%3Cscript%3E', [spans]);
    expect(text).not.toContain('<script>');
    expect(text).toContain('value="&quot;&gt;&lt;script&gt;"');
    expect(page('', [spans])).toContain('>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</a></td>');
  });

  it('says when the read hit the limit, and pages', () => {
    const query = parseListQuery(new URLSearchParams('page=2'));
    const traces = Array.from({ length: 60 }, (_, i) => exampleSpans((i + 1).toString(16).padStart(32, '0')));
    const text = renderTraceList({ query, page: listPage(traces, query), columns: [], service: 's', read: 60, readLimit: 60 }).text;
    expect(text).toContain('(the newest 60: narrow the window to see older ones)');
    expect(text).toContain('<a href="/ui/traces">← Newer</a><span class="muted">page 2 of 2</span>');
  });
});
