import { describe, expect, it } from 'vitest';
import { escapeHtml, href, html, Html } from './html.js';

describe('escapeHtml', () => {
  const table: Array<{ name: string; input: string; want: string }> = [
    { name: 'plain text', input: 'chat gemini-2.5-flash', want: 'chat gemini-2.5-flash' },
    { name: 'an img tag with an onerror handler', input: '<img src=x onerror=alert(1)>', want: '&lt;img src=x onerror=alert(1)&gt;' },
    { name: 'a script element', input: '<script>alert(1)</script>', want: '&lt;script&gt;alert(1)&lt;/script&gt;' },
    { name: 'breaking out of a double-quoted attribute', input: '" onmouseover="alert(1)', want: '&quot; onmouseover=&quot;alert(1)' },
    { name: 'breaking out of a single-quoted attribute', input: "' autofocus onfocus='x", want: '&#39; autofocus onfocus=&#39;x' },
    { name: 'an entity is shown, not decoded', input: '&lt;b&gt; &amp;', want: '&amp;lt;b&amp;gt; &amp;amp;' },
    { name: 'non-ASCII and emoji untouched', input: 'café ✗ 🙂', want: 'café ✗ 🙂' },
    { name: 'empty', input: '', want: '' },
  ];
  it.each(table)('$name', ({ input, want }) => {
    expect(escapeHtml(input)).toStrictEqual(want);
  });
});

describe('html', () => {
  const table: Array<{ name: string; got: () => Html; want: string }> = [
    { name: 'escapes an interpolated string', got: () => html`<td>${'<img src=x onerror=alert(1)>'}</td>`, want: '<td>&lt;img src=x onerror=alert(1)&gt;</td>' },
    { name: 'escapes inside an attribute', got: () => html`<a title="${'"><script>'}">x</a>`, want: '<a title="&quot;&gt;&lt;script&gt;">x</a>' },
    { name: 'keeps nested html', got: () => html`<ul>${html`<li>${'a&b'}</li>`}</ul>`, want: '<ul><li>a&amp;b</li></ul>' },
    { name: 'joins arrays, escaping each string', got: () => html`${['<a>', html`<b>`, 1]}`, want: '&lt;a&gt;<b>1' },
    { name: 'null, undefined and false are empty; 0 and true are text', got: () => html`${null}${undefined}${false}${0}${true}`, want: '0true' },
    { name: 'a number is its text', got: () => html`${0.000123}`, want: '0.000123' },
  ];
  it.each(table)('$name', ({ got, want }) => {
    expect(got().text).toStrictEqual(want);
  });

  it('href escapes the ampersands of a query string', () => {
    expect(href('/ui/traces', new URLSearchParams({ since: '1h', user: 'a"b' })).text).toStrictEqual('/ui/traces?since=1h&amp;user=a%22b');
    expect(href('/ui/traces', new URLSearchParams()).text).toStrictEqual('/ui/traces');
  });
});
