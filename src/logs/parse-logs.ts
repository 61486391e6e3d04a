/**
 * `POST /v1/logs` bodies (issue 8 item 1): one log or an array of 1 to 1,000, validated with strict
 * zod schemas; the first problem becomes a 400 whose `param` names the entry and field
 * (`logs[3].metadata.parentSpanId`; for a single log, the field alone). A batch is all or nothing.
 *
 * Pure: `now` is passed in. Ids are mapped here with the one id-mapping function shared with the
 * `x-gateway-*` headers (DESIGN Decision 2), so the batch checks (a parent needs a trace, no span
 * is its own parent, no cycle) compare ids after mapping, exactly as the spans will carry them.
 */
import { z } from 'zod';
import { InvalidRequestError } from '../errors.js';
import { formatParam, issueToError } from '../openai/parse-chat-request.js';
import { mapSpanId, mapTraceId } from '../telemetry/map-id.js';
import type { LogEntry, LoggedRequest as LoggedRequestFields, LoggedResponse as LoggedResponseFields } from '../telemetry/telemetry.js';

export const MAX_LOGS_PER_BATCH = 1000;
/** The same limits as `x-gateway-metadata` (docs/tracing.md). */
const METADATA_MAX_KEYS = 64;
const METADATA_KEY_MAX = 128;
const METADATA_VALUE_MAX = 1024;
const CLIENT_ID_MAX = 256;
const SPAN_NAME_MAX = 256;
/** A week: longer than any HTTP call worth logging, short enough to catch seconds sent as ms × 1000. */
const RESPONSE_TIME_MAX_MS = 7 * 24 * 3600 * 1000;

const ClientId = z.string().trim().min(1, 'must not be blank').max(CLIENT_ID_MAX);

const HeaderValue = z.union([z.string().max(16_384), z.array(z.string().max(16_384)).max(64)]);
const Headers = z
  .record(z.string().min(1).max(256), HeaderValue)
  .refine((h) => Object.keys(h).length <= 256, 'at most 256 headers');

const LoggedRequest = z.strictObject({
  url: z.string().min(1).max(8192).optional(),
  method: z
    .string()
    .regex(/^[A-Za-z]{1,32}$/, 'must be an HTTP method such as POST')
    .optional(),
  headers: Headers.optional(),
  body: z.unknown().optional(),
});

const LoggedResponse = z.strictObject({
  status: z.int().min(100).max(599).optional(),
  headers: Headers.optional(),
  body: z.unknown().optional(),
  response_time: z.number().min(0).max(RESPONSE_TIME_MAX_MS).optional(),
});

const Metadata = z
  .looseObject({
    traceId: ClientId.optional(),
    spanId: ClientId.optional(),
    parentSpanId: ClientId.optional(),
    spanName: z.string().trim().min(1, 'must not be blank').optional(),
  })
  .catchall(z.string().max(METADATA_VALUE_MAX))
  .superRefine((m, ctx) => {
    const keys = Object.keys(m);
    if (keys.length > METADATA_MAX_KEYS) ctx.addIssue({ code: 'custom', message: `at most ${METADATA_MAX_KEYS} keys` });
    for (const key of keys) {
      if (key.length === 0 || key.length > METADATA_KEY_MAX) {
        ctx.addIssue({ code: 'custom', path: [key], message: `keys must be 1 to ${METADATA_KEY_MAX} characters` });
      }
    }
  });

const CreatedAt = z.union([z.number().min(0).max(8.64e15), z.iso.datetime({ offset: true })]);

const Log = z.strictObject({
  request: LoggedRequest,
  response: LoggedResponse.optional(),
  metadata: Metadata.optional(),
  created_at: CreatedAt.optional(),
});

type RawLog = z.infer<typeof Log>;

/**
 * Validates a parsed JSON body. Throws `InvalidRequestError` (400, `param` set) on the first
 * problem; returns the logs in the order given.
 */
export function parseLogs(body: unknown, now: number): LogEntry[] {
  const batch = Array.isArray(body);
  if (!batch && (typeof body !== 'object' || body === null)) {
    throw new InvalidRequestError(`request body must be a log object or an array of 1 to ${MAX_LOGS_PER_BATCH} logs`, {
      code: 'invalid_request',
    });
  }
  const items: unknown[] = batch ? body : [body];
  if (items.length === 0 || items.length > MAX_LOGS_PER_BATCH) {
    throw new InvalidRequestError(`a batch holds 1 to ${MAX_LOGS_PER_BATCH} logs, got ${items.length}`, {
      param: 'logs',
      code: 'invalid_value',
    });
  }
  const prefix = (i: number): PropertyKey[] => (batch ? ['logs', i] : []);
  const entries = items.map((item, i) => {
    const result = Log.safeParse(item);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw issueToError({ ...issue, path: [...prefix(i), ...issue.path] } as typeof issue);
    }
    return toEntry(result.data, now);
  });
  checkBatch(entries, (i, field) => formatParam([...prefix(i), 'metadata', field]));
  return entries;
}

function toEntry(raw: RawLog, now: number): LogEntry {
  const { traceId, spanId, parentSpanId, spanName, ...metadata } = raw.metadata ?? {};
  const responseTime = raw.response?.response_time ?? 0;
  const startMs =
    raw.created_at === undefined ? now - responseTime : typeof raw.created_at === 'number' ? raw.created_at : Date.parse(raw.created_at);
  const entry: LogEntry = {
    request: raw.request as LoggedRequestFields,
    metadata: metadata as Record<string, string>,
    startMs,
    endMs: startMs + responseTime,
  };
  if (raw.response !== undefined) {
    const { response_time: _ms, ...response } = raw.response;
    entry.response = response as LoggedResponseFields;
  }
  if (traceId !== undefined) entry.trace = { id: mapTraceId(traceId), client: traceId };
  if (spanId !== undefined) entry.span = { id: mapSpanId(spanId), client: spanId };
  if (parentSpanId !== undefined) entry.parentSpanId = mapSpanId(parentSpanId);
  if (spanName !== undefined) entry.spanName = spanName.slice(0, SPAN_NAME_MAX);
  return entry;
}

/** Checks across entries: a parent needs a trace id, no span is its own parent, no cycle in a batch. */
function checkBatch(entries: readonly LogEntry[], param: (i: number, field: string) => string): void {
  const parentOf = new Map<string, string>();
  entries.forEach((entry, i) => {
    if (entry.parentSpanId === undefined) return;
    if (entry.trace === undefined) {
      throw new InvalidRequestError('metadata.parentSpanId needs metadata.traceId: a parent is only found within its trace', {
        param: param(i, 'parentSpanId'),
        code: 'invalid_value',
      });
    }
    if (entry.span !== undefined && entry.span.id === entry.parentSpanId) {
      throw new InvalidRequestError('a span cannot be its own parent (spanId equals parentSpanId after id mapping)', {
        param: param(i, 'parentSpanId'),
        code: 'invalid_value',
      });
    }
    if (entry.span !== undefined) parentOf.set(`${entry.trace.id}/${entry.span.id}`, entry.parentSpanId);
  });
  // Walk up from each entry; a walk longer than the batch means a cycle (A → B → … → A).
  entries.forEach((entry, i) => {
    if (entry.trace === undefined || entry.span === undefined || entry.parentSpanId === undefined) return;
    let current: string | undefined = entry.parentSpanId;
    for (let steps = 0; current !== undefined; steps++) {
      if (current === entry.span.id || steps > entries.length) {
        throw new InvalidRequestError('the parentSpanId links of this batch form a cycle', {
          param: param(i, 'parentSpanId'),
          code: 'invalid_value',
        });
      }
      current = parentOf.get(`${entry.trace.id}/${current}`);
    }
  });
}
