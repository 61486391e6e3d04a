/**
 * `TraceReader` over Jaeger's `/api/v3` HTTP API (OTLP JSON; reference jaeger-and-collector.md
 * §2.3). The only I/O of `traces/`. Jaeger answers 404 `No traces found` both for an unknown trace
 * and for a search without matches; every other failure (refused connection, timeout, 5xx) is a
 * `TraceBackendError` naming the backend.
 */
import { parseOtlpJson } from './parse-otlp-json.js';
import { TraceBackendError, type StoredSpan, type TraceQuery, type TraceReader } from './trace-reader.js';

export interface JaegerReaderOptions {
  /** Base URL of Jaeger's query service, e.g. `http://localhost:16686`. */
  url: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function createJaegerReader(options: JaegerReaderOptions): TraceReader {
  const base = options.url.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const doFetch = options.fetch ?? fetch;
  const description = `Jaeger at ${base}`;

  async function get(path: string): Promise<unknown | null> {
    let res: Response;
    try {
      res = await doFetch(`${base}${path}`, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new TraceBackendError(`trace backend unreachable: ${description} (${cause})`);
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new TraceBackendError(`trace backend error: ${description} answered HTTP ${res.status}`);
    }
    try {
      return await res.json();
    } catch {
      throw new TraceBackendError(`trace backend error: ${description} answered something that is not JSON`);
    }
  }

  return {
    description,
    async getTrace(traceId) {
      const body = await get(`/api/v3/traces/${encodeURIComponent(traceId)}`);
      if (body === null) return null;
      const spans = parseOtlpJson(body).filter((s) => s.traceId === traceId);
      return spans.length === 0 ? null : spans;
    },
    async findTraces(query: TraceQuery) {
      const params = new URLSearchParams({
        'query.service_name': query.service,
        'query.start_time_min': query.since.toISOString(),
        'query.start_time_max': query.until.toISOString(),
        // Jaeger ≤ 2.13 reads num_traces; later versions search_depth. Each ignores the other.
        'query.num_traces': String(query.limit),
        'query.search_depth': String(query.limit),
      });
      const body = await get(`/api/v3/traces?${params}`);
      if (body === null) return [];
      const byTrace = new Map<string, StoredSpan[]>();
      for (const span of parseOtlpJson(body)) {
        const list = byTrace.get(span.traceId) ?? [];
        list.push(span);
        byTrace.set(span.traceId, list);
      }
      return [...byTrace.values()];
    },
  };
}
