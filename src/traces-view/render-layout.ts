/**
 * The page shell of the Traces view, and the pages that are only a message: sign-in, backend
 * unset or down, not found, bad query. Pure: summary data in, `Html` out; every value escaped by
 * `html` (html.ts).
 */
import { html, Html, type HtmlValue } from './html.js';
import { VIEW_CSS } from './view-style.js';

export const ASSET_PATHS = { css: '/ui/assets/view.css', js: '/ui/assets/view.js' } as const;

const HEAD = (title: string) => html`<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title} · sidegate</title>`;

export function renderLayout(title: string, body: HtmlValue): Html {
  return html`<!doctype html>
<html lang="en">
<head>
${HEAD(title)}
<link rel="stylesheet" href="${ASSET_PATHS.css}">
<script src="${ASSET_PATHS.js}" defer></script>
</head>
<body>
<header class="top">
<a class="brand" href="/ui/traces">sidegate · Traces</a>
<nav><a href="/ui/traces">Recent traces</a><a href="/ui/traces?sort=cost">Most expensive</a><a href="/ui/traces?failed=1">Failures</a></nav>
<form method="post" action="/ui/sign-out"><button type="submit">Sign out</button></form>
</header>
<main>
${body}
</main>
</body>
</html>
`;
}

/**
 * The sign-in form. Shown at `/ui/` and, with 401, for any page asked for without a session;
 * `next` brings the user back to that page. The stylesheet is inlined (allowed by its CSP hash):
 * without a session no asset is served.
 */
export function renderSignIn(options: { next: string; failed?: boolean }): Html {
  return html`<!doctype html>
<html lang="en">
<head>
${HEAD('Sign in')}
<style>${new Html(VIEW_CSS)}</style>
</head>
<body>
<main class="sign-in">
<div class="card">
<h1>sidegate · Traces</h1>
<p class="muted">Sign in with a gateway key (<code>SIDEGATE_API_KEYS</code>) or the admin key.</p>
${options.failed ? html`<p class="error" role="alert">That key is not valid here.</p>` : null}
<form method="post" action="/ui/sign-in">
<input type="hidden" name="next" value="${options.next}">
<label for="key">Key</label>
<input id="key" name="key" type="password" autocomplete="off" required autofocus>
<button class="primary" type="submit">Sign in</button>
</form>
</div>
</main>
</body>
</html>
`;
}

/** A page that only says what went wrong (and, for the backend, which variable to set). */
export function renderProblem(title: string, message: string, hint?: HtmlValue): Html {
  return renderLayout(
    title,
    html`<h1>${title}</h1>
<div class="notice error"><p>${message}</p>${hint ?? null}</div>
<p><a href="/ui/traces">Back to recent traces</a></p>`,
  );
}

export function renderBackendProblem(message: string, unset: boolean): Html {
  return renderProblem(
    unset ? 'No trace backend configured' : 'The trace backend cannot be read',
    message,
    unset
      ? html`<p>Set <code>SIDEGATE_TRACES_URL</code> to the query API of your trace backend (for Jaeger, <code>http://jaeger:16686</code>) and restart the gateway.</p>`
      : html`<p>The gateway reads traces from <code>SIDEGATE_TRACES_URL</code>. Check that the backend is up and reachable from the sidecar, then reload.</p>`,
  );
}
