/**
 * The one escaping helper of the Traces view, and the `html` template tag built on it. Every value
 * interpolated into `html\`…\`` is escaped unless it is itself `Html` (the output of another `html`
 * call), so a renderer cannot forget to escape a span name, an attribute or a message: text from a
 * span only reaches a page through `escapeHtml`. Pure.
 *
 * Escapes the five characters that matter in element content and in quoted attribute values
 * (OWASP XSS prevention, rules 1 and 2); every attribute in the view is double-quoted.
 */

/** Markup that is already safe: made by `html`, or a constant written in this folder. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as it may stand in HTML content or a double-quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

/** Escaped text of any interpolated value; `Html` passes through, arrays are joined, null/undefined/false are empty. */
export function htmlOf(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(htmlOf).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += htmlOf(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** A query string or path for an `href`: the caller built it from encodeURIComponent'd parts; escaped as any attribute. */
export function href(path: string, query?: URLSearchParams): Html {
  const qs = query?.toString() ?? '';
  return new Html(escapeHtml(qs === '' ? path : `${path}?${qs}`));
}
