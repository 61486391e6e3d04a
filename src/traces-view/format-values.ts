/**
 * How the Traces view writes numbers and times: cost in dollars with enough digits to tell
 * fractions of a cent apart, durations in ms or s, token counts with thousands separators, times
 * in UTC (a sidecar's pods and its users rarely share a time zone). Pure; output is plain text
 * that the renderers escape like any other value.
 */

export function formatCost(usd: number | null): string {
  if (usd === null) return '';
  if (usd === 0) return '$0';
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  if (usd >= 0.01) return `$${usd.toFixed(4)}`;
  // Fractions of a cent: four significant digits, without exponent notation.
  return `$${usd.toFixed(Math.min(12, 3 - Math.floor(Math.log10(usd))))}`.replace(/0+$/, '');
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms - minutes * 60_000) / 1000)} s`;
}

export function formatCount(n: number | null): string {
  return n === null ? '' : n.toLocaleString('en-US');
}

/** `2026-11-25 14:03:12` (UTC) from an ISO time. */
export function formatTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '');
}

/** `3 · mean 2.5` or empty. */
export function formatFeedback(count: number, mean: number | null): string {
  if (count === 0) return '';
  return mean === null ? String(count) : `${count} · mean ${Number(mean.toFixed(2))}`;
}
