/** Span attribute names of sidegate's own (`gateway.*`); the GenAI and HTTP names come from semconv. */
export const ATTR_GATEWAY_TRACE_ID = 'gateway.trace_id';
export const ATTR_GATEWAY_SPAN_ID = 'gateway.span_id';
export const ATTR_GATEWAY_ATTEMPTS = 'gateway.attempts';
export const ATTR_GATEWAY_ATTEMPT_NUMBER = 'gateway.attempt.number';
export const ATTR_GATEWAY_TARGET_INDEX = 'gateway.target.index';
export const ATTR_GATEWAY_COST_USD = 'gateway.cost.usd';
/** `true` on an attempt with usage whose model the price table does not know (so no cost, never a guess). */
export const ATTR_GATEWAY_COST_UNKNOWN_MODEL = 'gateway.cost.unknown_model';
/** Seconds an attempt waited for an upstream connection before its request was written. */
export const ATTR_GATEWAY_UPSTREAM_QUEUE_DURATION = 'gateway.upstream.queue_duration';
export const ATTR_GATEWAY_WARNINGS = 'gateway.warnings';
export const METADATA_ATTRIBUTE_PREFIX = 'gateway.metadata.';
export const ATTR_GATEWAY_PROMPT_ID = 'gateway.prompt.id';
export const ATTR_GATEWAY_PROMPT_VERSION = 'gateway.prompt.version';
export const ATTR_GATEWAY_PROMPT_LABEL = 'gateway.prompt.label';
/** JSON of the variables a prompt was rendered with; only with message-content capture on. */
export const ATTR_GATEWAY_PROMPT_VARIABLES = 'gateway.prompt.variables';
/** Google Cloud project of a Vertex AI attempt (issue 22; semconv has no project attribute, `cloud.account.id` means the billing account). */
export const ATTR_GCP_PROJECT_ID = 'gcp.project_id';
/** Target health (issue 24, DESIGN Decision 20). */
export const ATTR_GATEWAY_BREAKER_PROBE = 'gateway.breaker.probe';
export const ATTR_GATEWAY_RETRY_BUDGET_EXHAUSTED = 'gateway.retry_budget_exhausted';
export const ATTR_GATEWAY_TARGETS_SKIPPED = 'gateway.targets_skipped';
export const ATTR_GATEWAY_SKIP_REASON = 'gateway.skip.reason';
export const ATTR_GATEWAY_SKIP_RETRY_IN_MS = 'gateway.skip.retry_in_ms';
/** A salted hash of a target's credential: tells two keys to one model apart, reveals neither. */
export const ATTR_GATEWAY_TARGET_CREDENTIAL = 'gateway.target.credential';
export const EVENT_TARGET_SKIPPED = 'target_skipped';
