import { describe, expect, it } from 'vitest';
import { summarizeTrace } from '../traces/summarize-trace.js';
import { exampleSpans, span, TRACE_ID } from './__fixtures__/example-spans.js';
import { INLINE_ATTRIBUTES_UP_TO, renderTrace } from './render-trace.js';
import { waterfallOf } from './waterfall.js';

function page(options: { jaegerUiUrl?: string; from?: string } = {}) {
  const spans = exampleSpans();
  const summary = summarizeTrace(spans);
  return renderTrace({ summary, rows: waterfallOf(summary, spans), jaegerUiUrl: options.jaegerUiUrl, from: options.from ?? '', folded: true }).text;
}

/** The `<details>` rows: [span id, classes, label]. */
const rowsOf = (text: string) =>
  [...text.matchAll(/<details class="([^"]+)" data-depth="(\d+)" data-span-id="([0-9a-f]+)"[^>]*>[\s\S]*?<span class="role">([^<]*)<\/span>/g)].map((m) => [m[3], m[1], Number(m[2]), m[4]]);

describe('renderTrace', () => {
  it('lists every span in tree order, each kind and the failed attempt marked', () => {
    expect(rowsOf(page())).toStrictEqual([
      ['0000000000000001', 'span log', 0, 'log'],
      ['0000000000000002', 'span request', 1, 'request'],
      ['0000000000000003', 'span attempt failed', 2, 'attempt #1'],
      ['0000000000000004', 'span attempt', 2, 'attempt #2 · retry 1'],
      ['0000000000000005', 'span log', 1, 'log'],
      ['0000000000000006', 'span feedback', 0, 'feedback'],
      ['0000000000000007', 'span feedback', 0, 'feedback'],
    ]);
    expect(page()).toContain('<span class="cell status">error 503</span>');
  });

  it('shows the totals, the feedback with its metadata, and places bars with SVG attributes (no inline style)', () => {
    const text = page();
    expect(text).toContain('<div><b>$0.00011</b><span>cost</span></div>');
    expect(text).toContain('<div><b>2 · mean 6</b><span>feedback</span></div>');
    expect(text).toContain('<span class="pill">user=u-42</span>');
    expect(text).toContain('<rect x="11%" y="1" width="4%" height="10"></rect>');
    expect(text).not.toMatch(/\sstyle=/);
  });

  it('escapes names, attribute keys and values, and captured messages', () => {
    const text = page();
    expect(text).toContain('<span class="text" title="&lt;img src=x onerror=alert(1)&gt;">&lt;img src=x onerror=alert(1)&gt;</span>');
    expect(text).toContain('<dt>note&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;</dt><dd>&lt;b onmouseover=&quot;alert(4)&quot;&gt;x&lt;/b&gt;</dd>');
    expect(text).toContain('&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(text).not.toMatch(/<script>|<img |<b onmouseover/);
  });

  it('folds long values behind a toggle and shows captured messages as indented JSON', () => {
    const text = page();
    expect(text).toMatch(/<h3>gen_ai\.input\.messages<\/h3><details class="long"><summary>\[\n {2}\{\n {4}&quot;role&quot;: &quot;user&quot;,[\s\S]*?… show all \d+ characters<\/summary><pre>/);
  });

  it('links to Jaeger only when SIDEGATE_JAEGER_UI_URL is set, to the JSON, and back to the list with its filters', () => {
    expect(page()).not.toContain('Open in Jaeger');
    const text = page({ jaegerUiUrl: 'http://jaeger.example:16686', from: 'since=24h&sort=cost' });
    expect(text).toContain(`<a class="button secondary" href="http://jaeger.example:16686/trace/${TRACE_ID}" rel="noreferrer">Open in Jaeger</a>`);
    expect(text).toContain(`href="/ui/traces/${TRACE_ID}/json" download="trace-${TRACE_ID}.json"`);
    expect(text).toContain('<a class="button secondary" href="/ui/traces?since=24h&amp;sort=cost">← Back to the list</a>');
  });

  it(`leaves the attributes out past ${INLINE_ATTRIBUTES_UP_TO} spans: fetched on open, or shown with ?span= without the script`, () => {
    const hex = (n: number) => (n + 1).toString(16).padStart(16, '0');
    const many = Array.from({ length: INLINE_ATTRIBUTES_UP_TO + 1 }, (_, i) => span(hex(i), i === 0 ? '' : hex(0), `s${i}`, i, i + 1, { attributes: { 'gateway.log.id': `l${i}` } }));
    const summary = summarizeTrace(many);
    const render = (openSpanId?: string) => renderTrace({ summary, rows: waterfallOf(summary, many), jaegerUiUrl: undefined, from: '', folded: true, openSpanId }).text;
    const text = render();
    expect(text).not.toContain('<dt>gateway.log.id</dt>');
    expect(text).toContain(
      `<div class="attrs" data-load><a href="?span=${hex(5)}#s-${hex(5)}">Show the attributes</a></div>`,
    );
    const opened = render(hex(5));
    expect(opened).toContain(`data-span-id="${hex(5)}" id="s-${hex(5)}" open>`);
    expect(opened.match(/<dt>gateway\.log\.id<\/dt>/g)).toHaveLength(1);
    expect(opened).toContain('<dt>gateway.log.id</dt><dd>l5</dd>');
  });

  it('collapses levels past the threshold, with a count on the fold button and a link to every level', () => {
    const hex = (n: number) => (n + 1).toString(16).padStart(16, '0');
    const chain = Array.from({ length: 10 }, (_, i) => span(hex(i), i === 0 ? '' : hex(i - 1), `level ${i}`, i, 100 - i));
    const summary = summarizeTrace(chain);
    const text = renderTrace({ summary, rows: waterfallOf(summary, chain, 6), jaegerUiUrl: undefined, from: '', folded: true }).text;
    expect((text.match(/<details [^>]* hidden>/g) ?? []).length).toBe(3);
    expect(text).toContain('<button type="button" class="fold" aria-expanded="false">▸<span class="more">+3</span></button>');
    expect(text).toContain(`href="/ui/traces/${TRACE_ID}?levels=all">Show every level</a>`);
  });
});
