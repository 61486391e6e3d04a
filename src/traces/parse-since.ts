/**
 * `since` of `GET /v1/traces` and `sidegate traces --since`: a duration such as `90s`, `30m`, `1h`,
 * `2d`, up to 30 days. Pure; null when malformed or out of range.
 */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
export const MAX_SINCE_MS = 30 * 86_400_000;

export function parseSince(value: string): number | null {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(value.trim());
  if (match === null) return null;
  const ms = Number(match[1]) * UNITS[match[2]!]!;
  return ms > 0 && ms <= MAX_SINCE_MS ? ms : null;
}
