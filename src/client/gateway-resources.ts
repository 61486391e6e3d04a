/**
 * The gateway's own routes on the client (issue 8): logs, feedback and trace summaries. Each call
 * goes through the `openai` client's request path, so it carries the client's headers, retries
 * and error classes (`OpenAI.BadRequestError`…) like any other call.
 */
import type OpenAI from 'openai';
import type { TraceList } from '../traces/read-summaries.js';
import type { TraceSummary } from '../traces/summarize-trace.js';

export type { TraceList, TraceSummary };

type RequestOptions = Awaited<NonNullable<Parameters<OpenAI['get']>[1]>>;

/** One log (`POST /v1/logs`); `metadata.traceId/spanId/parentSpanId/spanName` place it in a trace. */
export interface SidegateLog {
  request: { url?: string; method?: string; headers?: Record<string, string | string[]>; body?: unknown };
  response?: { status?: number; headers?: Record<string, string | string[]>; body?: unknown; response_time?: number };
  metadata?: { traceId?: string; spanId?: string; parentSpanId?: string; spanName?: string; [key: string]: string | undefined };
  /** The log's start: ISO 8601 or epoch ms (default now − response_time). */
  created_at?: string | number;
}

export interface LogsInsertResponse {
  status: 'success';
  log_ids: string[];
}

export interface FeedbackCreateParams {
  trace_id: string;
  /** Integer −10…10. */
  value: number;
  /** 0…1, default 1. */
  weight?: number;
  metadata?: Record<string, string>;
}

export type FeedbackUpdateParams = Omit<FeedbackCreateParams, 'trace_id'>;

export interface FeedbackResponse {
  status: 'success';
  message: string;
  feedback_ids: string[];
}

export interface TracesListParams {
  /** How far back, e.g. `1h`, `30m`. */
  since?: string;
  limit?: number;
}

export class Logs {
  constructor(private readonly client: OpenAI) {}

  /** Inserts one log or up to 1,000; all or nothing. */
  insert(logs: SidegateLog | SidegateLog[], options?: RequestOptions): Promise<LogsInsertResponse> {
    return this.client.post<LogsInsertResponse>('/logs', { ...options, body: logs });
  }
}

export class Feedback {
  constructor(private readonly client: OpenAI) {}

  create(params: FeedbackCreateParams, options?: RequestOptions): Promise<FeedbackResponse> {
    return this.client.post<FeedbackResponse>('/feedback', { ...options, body: params });
  }

  /** Records a new version of feedback `id` (summaries count the latest version only). */
  update(id: string, params: FeedbackUpdateParams, options?: RequestOptions): Promise<FeedbackResponse> {
    return this.client.put<FeedbackResponse>(`/feedback/${encodeURIComponent(id)}`, { ...options, body: params });
  }
}

export class Traces {
  constructor(private readonly client: OpenAI) {}

  get(traceId: string, options?: RequestOptions): Promise<TraceSummary> {
    return this.client.get<TraceSummary>(`/traces/${encodeURIComponent(traceId)}`, options);
  }

  list(params: TracesListParams = {}, options?: RequestOptions): Promise<TraceList> {
    const query: Record<string, string> = {};
    if (params.since !== undefined) query.since = params.since;
    if (params.limit !== undefined) query.limit = String(params.limit);
    return this.client.get<TraceList>('/traces', { ...options, query });
  }
}
