/**
 * Every answer of the Traces view goes out through here, with the headers of issue 21 item 2: a
 * Content-Security-Policy that allows only the gateway's own origin (`default-src 'self'`, no
 * inline script; the one inline stylesheet, the sign-in page's, is allowed by its hash), no
 * framing, no referrer (a trace id in a URL stays on this origin), `nosniff`, and no caching of
 * pages that show trace data.
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Html } from './html.js';
import { VIEW_CSS } from './view-style.js';

/** The hash under which the sign-in page's inline copy of the stylesheet is allowed. */
export const INLINE_STYLE_HASH = `'sha256-${createHash('sha256').update(VIEW_CSS).digest('base64')}'`;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  `style-src 'self' ${INLINE_STYLE_HASH}`,
  // The favicon is `data:,` so the browser asks for no /favicon.ico.
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "object-src 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

export function sendBody(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, Object.assign({}, SECURITY_HEADERS, headers, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }));
  res.end(body);
}

export function sendPage(res: ServerResponse, status: number, page: Html, headers: Record<string, string> = {}): void {
  sendBody(res, status, 'text/html; charset=utf-8', page.text, headers);
}

/** 303 See Other to a path of this origin (after a form post). */
export function redirect(res: ServerResponse, location: string, headers: Record<string, string> = {}): void {
  sendBody(res, 303, 'text/plain; charset=utf-8', '', Object.assign({ location }, headers));
}
