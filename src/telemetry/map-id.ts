/**
 * Id mapping of DESIGN Decision 2, the one place it lives: headers, `/v1/logs` and
 * `/v1/feedback` all call these, so the same client id always lands in the same trace.
 * Pure; ids are compared only after mapping.
 */
import { createHash } from 'node:crypto';

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A 32-hex OTel trace id for any client trace id (hex and UUIDs kept, anything else hashed). */
export function mapTraceId(id: string): string {
  return mapId(id, 32, HEX32);
}

/** A 16-hex OTel span id for any client span id (hex kept, anything else hashed). */
export function mapSpanId(id: string): string {
  return mapId(id, 16, HEX16);
}

function mapId(id: string, length: 16 | 32, shape: RegExp): string {
  const lower = id.trim().toLowerCase();
  const candidate = UUID.test(lower) ? lower.replaceAll('-', '') : lower;
  if (shape.test(candidate) && !/^0+$/.test(candidate)) return candidate;
  // Hash the original string (not a truncated or lower-cased form), so ids differing only in
  // case or tail stay distinct — the pitfalls noted in portkey-gateway.md.
  const digest = createHash('sha256').update(id, 'utf8').digest('hex').slice(0, length);
  // A digest of all zeros is invalid in W3C; astronomically unlikely, but never emit one.
  return /^0+$/.test(digest) ? `${'0'.repeat(length - 1)}1` : digest;
}
