/**
 * The tracing part of the request context (DESIGN "Tracing model", Decisions 1–2, 18): W3C `traceparent`,
 * `tracestate` and `baggage` through OTel's own propagators, then the `x-gateway-*` headers
 * (or their `x-portkey-*` aliases), which win. Parsers copy the propagators' shape: a pure
 * `parseX(value)` returning a value or `null`. Bad tracing headers keep the incoming context;
 * only `x-gateway-metadata` and oversized baggage are client errors (400), since routing reads them.
 *
 * Limits (documented in docs/tracing.md): `x-gateway-metadata` ≤ 8 KiB, ≤ 64 keys, keys ≤ 128 chars,
 * values ≤ 1024 chars; `baggage` ≤ 8192 bytes and ≤ 180 members (the W3C Baggage limits);
 * `x-gateway-span-name` ≤ 256 chars (longer names are cut, not refused).
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  ROOT_CONTEXT,
  TraceFlags,
  defaultTextMapGetter,
  propagation,
  trace,
  type SpanContext,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { canonicalHeader } from '../config/header-aliases.js';
import { InvalidRequestError } from '../errors.js';
import { mapSpanId, mapTraceId } from '../telemetry/map-id.js';

export const METADATA_LIMITS = Object.freeze({
  headerBytes: 8192,
  keys: 64,
  keyLength: 128,
  valueLength: 1024,
});
export const BAGGAGE_LIMITS = Object.freeze({ headerBytes: 8192, members: 180 });
export const SPAN_NAME_MAX_LENGTH = 256;

export interface IncomingTrace {
  /** 32-hex trace id to use; undefined means a new trace. */
  traceId?: string;
  /** The client's own `x-gateway-trace-id` (echoed in the response, kept as `gateway.trace_id`). */
  clientTraceId?: string;
  /** The span the request span is filed under (remote). */
  parent?: SpanContext;
  /** 16-hex id the client asked the request span to have (Decision 1). */
  requestedSpanId?: string;
  /** The client's own `x-gateway-span-id` (kept as `gateway.span_id`). */
  clientSpanId?: string;
  spanName?: string;
  /** Baggage merged with `x-gateway-metadata` (which wins). */
  metadata: Record<string, string>;
}

/** `x-gateway-metadata`: a JSON object of strings within METADATA_LIMITS, else null. */
export function parseMetadata(value: string): Record<string, string> | null {
  if (Buffer.byteLength(value, 'utf8') > METADATA_LIMITS.headerBytes) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const entries = Object.entries(parsed);
  if (entries.length > METADATA_LIMITS.keys) return null;
  const out: Record<string, string> = {};
  for (const [key, v] of entries) {
    if (typeof v !== 'string') return null;
    if (key.length === 0 || key.length > METADATA_LIMITS.keyLength || v.length > METADATA_LIMITS.valueLength) return null;
    out[key] = v;
  }
  return out;
}

/** A client trace id as given (trimmed), or null when blank or absurdly long. */
export function parseClientId(value: string): string | null {
  const trimmed = value.trim();
  return trimmed.length === 0 || trimmed.length > 256 ? null : trimmed;
}

/** `x-gateway-span-name`, trimmed and cut to SPAN_NAME_MAX_LENGTH; null when blank. */
export function parseSpanName(value: string): string | null {
  const trimmed = value.trim();
  return trimmed.length === 0 ? null : trimmed.slice(0, SPAN_NAME_MAX_LENGTH);
}

/**
 * Reads the incoming trace context and metadata of one request. Throws `InvalidRequestError` only for invalid
 * `x-gateway-metadata` or oversized `baggage`; anything else malformed is ignored.
 */
export function readTraceHeaders(headers: IncomingHttpHeaders, propagator: TextMapPropagator): IncomingTrace {
  const rawBaggage = headers.baggage;
  const baggageText = Array.isArray(rawBaggage) ? rawBaggage.join(',') : rawBaggage;
  if (baggageText !== undefined && Buffer.byteLength(baggageText, 'utf8') > BAGGAGE_LIMITS.headerBytes) {
    throw new InvalidRequestError(`baggage exceeds ${BAGGAGE_LIMITS.headerBytes} bytes`, { param: 'baggage' });
  }
  const extracted = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
  const w3c = trace.getSpanContext(extracted);
  const incoming = w3c !== undefined && trace.isSpanContextValid(w3c) ? w3c : undefined;

  const metadata: Record<string, string> = {};
  const baggage = propagation.getBaggage(extracted);
  if (baggage !== undefined) {
    const members = baggage.getAllEntries();
    if (members.length > BAGGAGE_LIMITS.members) {
      throw new InvalidRequestError(`baggage has more than ${BAGGAGE_LIMITS.members} members`, { param: 'baggage' });
    }
    // OTel's W3C baggage propagator already URL-decodes keys and values.
    for (const [key, entry] of members) metadata[key] = entry.value;
  }
  const metadataHeader = canonicalHeader(headers, 'x-gateway-metadata');
  if (metadataHeader !== undefined) {
    const parsed = parseMetadata(metadataHeader);
    if (parsed === null) {
      throw new InvalidRequestError(
        `x-gateway-metadata must be a JSON object of string values (at most ${METADATA_LIMITS.keys} keys, ` +
          `keys ≤ ${METADATA_LIMITS.keyLength} and values ≤ ${METADATA_LIMITS.valueLength} characters, ` +
          `${METADATA_LIMITS.headerBytes} bytes in all)`,
        { param: 'x-gateway-metadata' },
      );
    }
    Object.assign(metadata, parsed);
  }

  const result: IncomingTrace = { metadata };
  const traceHeader = canonicalHeader(headers, 'x-gateway-trace-id');
  const clientTraceId = traceHeader === undefined ? null : parseClientId(traceHeader);
  if (clientTraceId !== null) result.clientTraceId = clientTraceId;
  const traceId = clientTraceId !== null ? mapTraceId(clientTraceId) : incoming?.traceId;
  if (traceId !== undefined) result.traceId = traceId;
  const sameTrace = incoming !== undefined && incoming.traceId === traceId ? incoming : undefined;

  const parentHeader = canonicalHeader(headers, 'x-gateway-parent-span-id');
  const clientParent = parentHeader === undefined ? null : parseClientId(parentHeader);
  const parentSpanId = clientParent !== null ? mapSpanId(clientParent) : sameTrace?.spanId;

  const spanHeader = canonicalHeader(headers, 'x-gateway-span-id');
  const clientSpanId = spanHeader === undefined ? null : parseClientId(spanHeader);
  if (clientSpanId !== null) {
    result.clientSpanId = clientSpanId;
    const requested = mapSpanId(clientSpanId);
    // Decision 1: the span named by traceparent (or the explicit parent) already exists, so the
    // request is filed under it with a fresh id rather than taking the parent's id.
    if (requested !== parentSpanId && requested !== sameTrace?.spanId) result.requestedSpanId = requested;
  }

  if (traceId !== undefined && parentSpanId !== undefined) {
    result.parent = {
      traceId,
      spanId: parentSpanId,
      traceFlags: sameTrace?.traceFlags ?? TraceFlags.SAMPLED,
      isRemote: true,
      ...(sameTrace?.traceState !== undefined ? { traceState: sameTrace.traceState } : {}),
    };
  }

  const nameHeader = canonicalHeader(headers, 'x-gateway-span-name');
  const spanName = nameHeader === undefined ? null : parseSpanName(nameHeader);
  if (spanName !== null) result.spanName = spanName;
  return result;
}
