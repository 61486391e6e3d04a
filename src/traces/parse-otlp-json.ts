/**
 * OTLP/JSON traces (`{resourceSpans:[…]}`, as Jaeger's `/api/v3` and any OTLP store return them)
 * → `StoredSpan`s. Pure; lenient like every parser of a backend's answer (STYLE §6): fields we do
 * not read are ignored, a span without ids is skipped, unknown enum values map to defaults.
 * Ids are hex per the OTLP/JSON spec; int64 values arrive as strings.
 */
import { z } from 'zod';
import type { AttributeValue, SpanKindName, SpanStatusName, StoredSpan } from './trace-reader.js';

interface OtlpValue {
  stringValue?: string | null;
  intValue?: string | number | null;
  doubleValue?: number | string | null;
  boolValue?: boolean | null;
  arrayValue?: { values?: OtlpValue[] | null } | null;
}

const Value: z.ZodType<OtlpValue> = z.lazy(() =>
  z.looseObject({
    stringValue: z.string().nullish(),
    intValue: z.union([z.string(), z.number()]).nullish(),
    doubleValue: z.union([z.number(), z.string()]).nullish(),
    boolValue: z.boolean().nullish(),
    arrayValue: z.looseObject({ values: z.array(Value).nullish() }).nullish(),
  }),
);
const Attributes = z.array(z.looseObject({ key: z.string(), value: Value.nullish() })).nullish();
const Span = z.looseObject({
  traceId: z.string(),
  spanId: z.string(),
  parentSpanId: z.string().nullish(),
  name: z.string().nullish(),
  kind: z.union([z.number(), z.string()]).nullish(),
  startTimeUnixNano: z.union([z.string(), z.number()]).nullish(),
  endTimeUnixNano: z.union([z.string(), z.number()]).nullish(),
  attributes: Attributes,
  status: z.looseObject({ code: z.union([z.number(), z.string()]).nullish(), message: z.string().nullish() }).nullish(),
});
const Traces = z.looseObject({
  resourceSpans: z
    .array(
      z.looseObject({
        resource: z.looseObject({ attributes: Attributes }).nullish(),
        scopeSpans: z.array(z.looseObject({ spans: z.array(z.unknown()).nullish() })).nullish(),
      }),
    )
    .nullish(),
});

const KINDS: Record<string, SpanKindName> = {
  '1': 'internal',
  '2': 'server',
  '3': 'client',
  '4': 'producer',
  '5': 'consumer',
  SPAN_KIND_INTERNAL: 'internal',
  SPAN_KIND_SERVER: 'server',
  SPAN_KIND_CLIENT: 'client',
  SPAN_KIND_PRODUCER: 'producer',
  SPAN_KIND_CONSUMER: 'consumer',
};
const STATUSES: Record<string, SpanStatusName> = { '1': 'ok', '2': 'error', STATUS_CODE_OK: 'ok', STATUS_CODE_ERROR: 'error' };

/** Spans of an OTLP/JSON `TracesData` (or of Jaeger's `{result: TracesData}`); [] for anything else. */
export function parseOtlpJson(body: unknown): StoredSpan[] {
  const root = typeof body === 'object' && body !== null && 'result' in body ? (body as { result: unknown }).result : body;
  const traces = Traces.safeParse(root);
  if (!traces.success) return [];
  const out: StoredSpan[] = [];
  for (const rs of traces.data.resourceSpans ?? []) {
    const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? '';
    for (const ss of rs.scopeSpans ?? []) {
      for (const raw of ss.spans ?? []) {
        const span = Span.safeParse(raw);
        if (!span.success || span.data.traceId === '' || span.data.spanId === '') continue;
        const s = span.data;
        const stored: StoredSpan = {
          traceId: s.traceId.toLowerCase(),
          spanId: s.spanId.toLowerCase(),
          parentSpanId: (s.parentSpanId ?? '').toLowerCase(),
          name: s.name ?? '',
          kind: KINDS[String(s.kind ?? '')] ?? 'unspecified',
          status: STATUSES[String(s.status?.code ?? '')] ?? 'unset',
          startNs: toBigInt(s.startTimeUnixNano),
          endNs: toBigInt(s.endTimeUnixNano),
          attributes: attributesOf(s.attributes),
          service,
        };
        if (s.status?.message) stored.statusMessage = s.status.message;
        out.push(stored);
      }
    }
  }
  return out;
}

function toBigInt(value: string | number | null | undefined): bigint {
  try {
    return value === null || value === undefined ? 0n : BigInt(typeof value === 'number' ? Math.trunc(value) : value);
  } catch {
    return 0n;
  }
}

function attributesOf(list: z.infer<typeof Attributes>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    const flat = value == null ? undefined : flatten(value);
    if (flat !== undefined) out[key] = flat;
  }
  return out;
}

function flatten(value: OtlpValue): AttributeValue | undefined {
  if (value.stringValue != null) return value.stringValue;
  if (value.intValue != null) return Number(value.intValue);
  if (value.doubleValue != null) return Number(value.doubleValue);
  if (value.boolValue != null) return value.boolValue;
  if (value.arrayValue != null) {
    return (value.arrayValue.values ?? []).map(flatten).filter((v): v is string | number | boolean => v !== undefined && typeof v !== 'object');
  }
  return undefined;
}
