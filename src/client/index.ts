/**
 * `sidegate/client`: the official `openai` client pointed at a sidegate gateway, with the
 * gateway's headers, per-call tracing options and its logs, feedback and traces routes.
 */
export { createClient, sidegate, SidegateClient, DEFAULT_BASE_URL, type SidegateClientOptions, type RequestOptions } from './create-client.js';
export { createHeaders, type SidegateConfig, type SidegateHeaderOptions, type SidegateRequestOptions } from './create-headers.js';
export type {
  FeedbackCreateParams,
  FeedbackResponse,
  FeedbackUpdateParams,
  LogsInsertResponse,
  SidegateLog,
  TraceList,
  TraceSummary,
  TracesListParams,
} from './gateway-resources.js';
