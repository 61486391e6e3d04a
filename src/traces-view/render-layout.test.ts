import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { renderBackendProblem, renderLayout, renderSignIn } from './render-layout.js';
import { CONTENT_SECURITY_POLICY } from './send-page.js';

describe('renderSignIn', () => {
  it('posts the key in the body to /ui/sign-in, never in a URL, and escapes where to go next', () => {
    const text = renderSignIn({ next: '/ui/traces?x="><script>' }).text;
    expect(text).toContain('<form method="post" action="/ui/sign-in">');
    expect(text).toContain('<input type="hidden" name="next" value="/ui/traces?x=&quot;&gt;&lt;script&gt;">');
    expect(text).toContain('<input id="key" name="key" type="password" autocomplete="off" required autofocus>');
    expect(text).not.toContain('That key is not valid');
    expect(renderSignIn({ next: '/ui/traces', failed: true }).text).toContain('That key is not valid here.');
  });

  it('inlines only the stylesheet, under the hash the CSP allows', () => {
    const text = renderSignIn({ next: '/ui/traces' }).text;
    const style = /<style>([\s\S]*?)<\/style>/.exec(text)![1]!;
    expect(CONTENT_SECURITY_POLICY).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(text).not.toMatch(/<script|<link rel="stylesheet"/);
  });
});

describe('renderLayout and problems', () => {
  it('loads the stylesheet and the script from the gateway, and escapes the title', () => {
    const text = renderLayout('<x>', '').text;
    expect(text).toContain('<title>&lt;x&gt; · sidegate</title>');
    expect(text).toContain('<link rel="stylesheet" href="/ui/assets/view.css">');
    expect(text).toContain('<script src="/ui/assets/view.js" defer></script>');
    expect(text).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('names SIDEGATE_TRACES_URL when the backend is unset or down', () => {
    expect(renderBackendProblem('SIDEGATE_TRACES_URL is not set', true).text).toContain('Set <code>SIDEGATE_TRACES_URL</code>');
    expect(renderBackendProblem('unreachable: <Jaeger>', false).text).toContain('unreachable: &lt;Jaeger&gt;');
  });
});
