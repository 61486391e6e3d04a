/**
 * What `GET /v1/traces[/id]` and `sidegate trace[s]` share: read through a `TraceReader`, then
 * summarise. Errors are the gateway's (404 unknown trace, 503 backend unset or unreachable), so the
 * HTTP route and the CLI say the same thing.
 */
import { GatewayError, NotFoundError } from '../errors.js';
import { mapTraceId } from '../telemetry/map-id.js';
import { overviewOf, summarizeTrace, type TraceOverview, type TraceSummary } from './summarize-trace.js';
import { TraceBackendError, type StoredSpan, type TraceReader } from './trace-reader.js';

/** 503: no trace backend configured, or it could not be read. */
export class TracesUnavailableError extends GatewayError {
  readonly status = 503;
  readonly type = 'api_error' as const;
}

export const TRACES_URL_UNSET = 'SIDEGATE_TRACES_URL is not set, so the gateway has no trace backend to read traces from (e.g. http://localhost:16686 for Jaeger)';

export async function readTraceSummary(reader: TraceReader | undefined, clientTraceId: string): Promise<TraceSummary> {
  return summarizeTrace(await readTraceSpans(reader, clientTraceId));
}

/** Every stored span of one trace (the Traces view shows their attributes); the same errors as `readTraceSummary`. */
export async function readTraceSpans(reader: TraceReader | undefined, clientTraceId: string): Promise<StoredSpan[]> {
  const traceId = mapTraceId(clientTraceId);
  const spans = await ask(reader, (r) => r.getTrace(traceId));
  if (spans === null) {
    throw new NotFoundError(`trace ${traceId} not found in ${reader!.description}`, { code: 'trace_not_found' });
  }
  return spans;
}

export interface TraceList {
  object: 'list';
  service: string;
  since: string;
  limit: number;
  data: TraceOverview[];
}

export async function readRecentTraces(
  reader: TraceReader | undefined,
  query: { service: string; sinceMs: number; limit: number; now: Date },
): Promise<TraceList> {
  const { since, traces } = await readRecentTraceSpans(reader, query);
  const data = traces
    .map(overviewOf)
    .sort((a, b) => (a.start_time < b.start_time ? 1 : a.start_time > b.start_time ? -1 : 0))
    .slice(0, query.limit);
  return { object: 'list', service: query.service, since: since.toISOString(), limit: query.limit, data };
}

/** The spans of recent traces (none empty), with the start of the window; the same errors as `readRecentTraces`. */
export async function readRecentTraceSpans(
  reader: TraceReader | undefined,
  query: { service: string; sinceMs: number; limit: number; now: Date },
): Promise<{ since: Date; traces: StoredSpan[][] }> {
  const since = new Date(query.now.getTime() - query.sinceMs);
  const traces = await ask(reader, (r) => r.findTraces({ service: query.service, since, until: query.now, limit: query.limit }));
  return { since, traces: traces.filter((spans) => spans.length > 0) };
}

async function ask<T>(reader: TraceReader | undefined, call: (reader: TraceReader) => Promise<T>): Promise<T> {
  if (reader === undefined) throw new TracesUnavailableError(TRACES_URL_UNSET, { code: 'traces_url_unset' });
  try {
    return await call(reader);
  } catch (err) {
    if (err instanceof TraceBackendError) throw new TracesUnavailableError(err.message, { code: 'trace_backend_unavailable' });
    throw err;
  }
}
